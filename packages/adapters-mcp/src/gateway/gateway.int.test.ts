import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult, Transport } from "@modelcontextprotocol/client";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { loadConversationState, type ToolledgerEvent } from "@toolledger/core";
import { initializeBody, MCP_POST_HEADERS, postInitialize } from "@toolledger/core/testing";
import { openSqliteEventStore } from "@toolledger/store-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  openStandaloneConversation,
  type StandaloneConversation,
} from "../conversation/standaloneConversation.js";
import type { ExtensionConfig } from "../extensionConfig.js";
import { shipped } from "../testing/fixtures.js";
import { type ServeStdioTransport, serveStdioTransport } from "../testing/serveCli.js";
import type { HttpGateway } from "./gatewayOptions.js";
import { serveGatewayHttp } from "./serveGatewayHttp.js";

const extensions: ExtensionConfig[] = [
  shipped("calc", "calculator"),
  shipped("notes", "notes"),
  shipped("changing", "changing"),
];
const deferral = { mode: "lookup" as const, alwaysLoad: ["calc__calculate"] };

const textOf = (result: unknown) =>
  ((result as CallToolResult).content as { text: string }[]).map((c) => c.text).join("");

interface Downstream {
  client: Client;
  /** How many tools/list_changed notifications the client got. */
  changes: () => number;
}

async function connectClient(transport: Transport): Promise<Downstream> {
  let changes = 0;
  const client = new Client({ name: "downstream-test", version: "1.0.0" });
  client.setNotificationHandler("notifications/tools/list_changed", () => {
    changes++;
  });
  await client.connect(transport);
  return { client, changes: () => changes };
}

/** The same downstream scenario over each transport (D4, D5, D9, R13). */
function scenario(get: () => Downstream) {
  it("lists the model view: eager tools plus enable_tools, deferred names in the instructions (D4)", async () => {
    const { client } = get();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["calc__calculate", "enable_tools"]);
    const enable = tools.find((t) => t.name === "enable_tools");
    expect(enable?.description).toContain("notes__add_note");
    expect(client.getInstructions()).toContain("notes__add_note");
    expect(tools[0]?._meta).toMatchObject({ goose_extension: "calc" });
  });

  it("refuses a deferred tool that is not enabled, telling the model what to do (D9)", async () => {
    const result = await get().client.callTool({
      name: "notes__add_note",
      arguments: { title: "t", body: "b" },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('call enable_tools with {"names": ["notes__add_note"]} first');
  });

  it("fails enable_tools with an unknown name, enabling nothing (D5)", async () => {
    const { client, changes } = get();
    const before = changes();
    const result = await client.callTool({
      name: "enable_tools",
      arguments: { names: ["notes__add_note", "notes__nope"] },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('"notes__nope": unknown tool');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).not.toContain("notes__add_note");
    expect(changes()).toBe(before);
  });

  it("enables tools, notifies the client, and lists their schemas (D5)", async () => {
    const { client, changes } = get();
    const before = changes();
    const result = await client.callTool({
      name: "enable_tools",
      arguments: { names: ["notes__add_note", "changing__add_tool"] },
    });
    expect(result.isError).toBeFalsy();
    await expect.poll(changes, { timeout: 5_000 }).toBeGreaterThan(before);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "calc__calculate",
      "changing__add_tool",
      "enable_tools",
      "notes__add_note",
    ]);
  });

  it("routes calls to two different upstream servers (R13)", async () => {
    const { client } = get();
    expect(
      textOf(
        await client.callTool({
          name: "notes__add_note",
          arguments: { title: "Plan", body: "ship it" },
        }),
      ),
    ).toBe("saved note 1: Plan");
    expect(
      textOf(
        await client.callTool({ name: "calc__calculate", arguments: { expression: "2 ^ 10" } }),
      ),
    ).toBe("2 ^ 10 = 1024");
  });

  it("passes an upstream list change downstream as list_changed (R11)", async () => {
    const { client, changes } = get();
    const before = changes();
    await client.callTool({ name: "changing__add_tool", arguments: { name: "brand_new" } });
    await expect.poll(changes, { timeout: 5_000 }).toBeGreaterThan(before);
    await expect
      .poll(
        async () =>
          (await client.listTools()).tools.find((t) => t.name === "enable_tools")?.description ??
          "",
        { timeout: 5_000 },
      )
      .toContain("changing__brand_new");
  });
}

describe("gateway over streamable HTTP, with the SQLite store", () => {
  let dir: string;
  let session: StandaloneConversation;
  let gateway: HttpGateway;
  let downstream: Downstream;
  let dbFile: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolledger-gw-"));
    dbFile = join(dir, "events.db");
    session = await openStandaloneConversation({
      store: openSqliteEventStore(dbFile),
      streamId: "gateway-http",
    });
    await session.configureDeferral(deferral.mode, deferral.alwaysLoad);
    await session.addExtensions(extensions);
    gateway = await serveGatewayHttp(session);
    expect(gateway.url.hostname).toBe("127.0.0.1");
    downstream = await connectClient(new StreamableHTTPClientTransport(gateway.url));
  });
  afterAll(async () => {
    await downstream?.client.close();
    await gateway?.close();
    await session?.close();
    await session?.store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  scenario(() => downstream);

  it("lands the session's full event log in the SQLite file", async () => {
    await session.settled();
    const reopened = openSqliteEventStore(dbFile);
    try {
      const stored = await reopened.readAll({ limit: 100_000 });
      const events: ToolledgerEvent[] = stored.map((e) => e.event);
      expect((await loadConversationState(reopened, "gateway-http")).state).toEqual(session.state);
      const types = new Set(events.map((e) => e.type));
      for (const type of [
        "DeferralConfigured",
        "ExtensionAdded",
        "ToolsFetched",
        "ToolsInvalidated",
        "EnableToolsRequested",
        "EnableToolsResponded",
      ]) {
        expect(types).toContain(type);
      }
      const responses = events.filter((e) => e.type === "EnableToolsResponded");
      expect(responses.map((e) => e.ok)).toEqual([false, true]);
      for (const streamId of new Set(stored.map((e) => e.streamId))) {
        const stream = stored.filter((e) => e.streamId === streamId);
        expect(stream.map((e) => e.streamPosition)).toEqual(stream.map((_, i) => i + 1));
      }
      expect(new Set(stored.map((e) => e.streamId))).toEqual(
        new Set(["gateway-http", session.registryStreamId]),
      );
    } finally {
      await reopened.close();
    }
  });
});

describe("gateway over stdio (toolledger serve)", () => {
  let served: ServeStdioTransport;
  let downstream: Downstream;

  beforeAll(async () => {
    served = serveStdioTransport(extensions, [
      "--deferral",
      deferral.mode,
      "--always-load",
      deferral.alwaysLoad.join(","),
    ]);
    // Instructions are fixed at the handshake: the client connects once every server is up.
    downstream = await connectClient(await served.startedWhenReady());
  });
  afterAll(async () => {
    await downstream?.client.close();
    served?.remove();
  });

  scenario(() => downstream);

  it("logs nothing alarming on stderr", () => {
    expect(served.stderr()).not.toMatch(/warning|error/i);
  });
});

describe("gateway over HTTP: loopback only", () => {
  it("refuses a request whose Host header is not the loopback address (DNS rebinding)", async () => {
    const session = await openStandaloneConversation();
    const gateway = await serveGatewayHttp(session);
    try {
      const { request } = await import("node:http");
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          gateway.url,
          {
            method: "POST",
            headers: { ...MCP_POST_HEADERS, host: `evil.example:${gateway.url.port}` },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end(initializeBody("x"));
      });
      expect(status).toBe(403);
      const ok = await postInitialize(gateway.url, {}, "x");
      expect(ok.status).toBe(200);
      await ok.body?.cancel();
    } finally {
      await gateway.close();
      await session.close();
    }
  });
});
