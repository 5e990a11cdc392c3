// G1/G2 through a prefixed upstream (the shipped reference server as `ref`, and a second copy
// as `zed` for URI conflicts): prompts named like tools (R3), completions routed to the owner,
// resources keeping their URIs, list changes recorded as registry events, MCP errors.

import type { CallToolResult } from "@modelcontextprotocol/client";
import {
  Client,
  ProtocolError,
  ProtocolErrorCode,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { catalog, replay } from "@toolledger/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  openStandaloneConversation,
  type StandaloneConversation,
} from "../conversation/standaloneConversation.js";
import { openHost } from "../host/toolledgerHost.js";
import { shipped } from "../testing/fixtures.js";
import type { HttpGateway } from "./gatewayOptions.js";
import { serveGatewayHttp } from "./serveGatewayHttp.js";

const textOf = (result: unknown) =>
  ((result as CallToolResult).content as { text?: string }[]).map((c) => c.text ?? "").join("");

async function until(what: string, done: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("G1 through a prefixed upstream", () => {
  let session: StandaloneConversation;
  let gateway: HttpGateway;
  let client: Client;
  const seen = { logs: [] as string[], updates: [] as string[], promptChanges: 0, sampling: 0 };

  beforeAll(async () => {
    session = await openStandaloneConversation();
    await session.configureDeferral("lookup", [
      "ref__test_tool_with_progress",
      "ref__test_sampling",
      "ref__test_tool_with_logging",
      "ref__add_prompt",
      "ref__touch_resource",
    ]);
    await session.addExtensions([shipped("ref", "reference"), shipped("zed", "reference")]);
    gateway = await serveGatewayHttp(session, { port: 0 });
    client = new Client(
      { name: "relay-test", version: "1.0.0" },
      { capabilities: { sampling: {} } },
    );
    client.setRequestHandler("sampling/createMessage", () => {
      seen.sampling++;
      return { role: "assistant", content: { type: "text", text: "sampled" }, model: "m" };
    });
    client.setNotificationHandler("notifications/message", (n) => {
      seen.logs.push(String(n.params.data));
    });
    client.setNotificationHandler("notifications/resources/updated", (n) => {
      seen.updates.push(n.params.uri);
    });
    client.setNotificationHandler("notifications/prompts/list_changed", () => {
      seen.promptChanges++;
    });
    await client.connect(new StreamableHTTPClientTransport(gateway.url));
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await gateway?.close();
    await session?.close();
  });

  it("R3: prompts are prefixed like tools, and prompts/get reaches the owner with the raw name", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(
      expect.arrayContaining(["ref__test_simple_prompt", "zed__test_prompt_with_arguments"]),
    );
    expect(prompts.find((p) => p.name === "ref__test_simple_prompt")?._meta).toMatchObject({
      goose_extension: "ref",
    });
    const got = await client.getPrompt({
      name: "ref__test_prompt_with_arguments",
      arguments: { arg1: "hello", arg2: "world" },
    });
    expect(got.messages[0]?.content).toEqual({
      type: "text",
      text: "Prompt with arguments: arg1='hello', arg2='world'",
    });
  });

  it("completions are routed to the prompt's owner under its raw name", async () => {
    const { completion } = await client.complete({
      ref: { type: "ref/prompt", name: "zed__test_prompt_with_arguments" },
      argument: { name: "arg1", value: "te" },
    });
    expect(completion.values).toEqual(["test", "testing", "tested"]);
  });

  it("G2: an unknown prompt is -32602 with close names", async () => {
    const error = await client
      .getPrompt({ name: "ref__test_simple_promt" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(ProtocolErrorCode.InvalidParams);
    expect((error as ProtocolError).message).toContain("ref__test_simple_prompt");
  });

  it("resources keep their URIs; a URI both servers list goes to the first by key, with a diagnostic", async () => {
    const { resources } = await client.listResources();
    expect(resources.filter((r) => r.uri === "test://static-text")).toHaveLength(1);
    const read = await client.readResource({ uri: "test://template/7/data" });
    expect(read.contents[0]).toMatchObject({ uri: "test://template/7/data" });
    expect(session.diagnostics()).toContainEqual(
      expect.objectContaining({
        kind: "catalog_conflict",
        name: "test://static-text",
        winner: "ref",
        losers: ["zed"],
      }),
    );
    const missing = await client.readResource({ uri: "nowhere://x" }).catch((e: unknown) => e);
    // SDK 2 sends ResourceNotFound (-32002) as InvalidParams (-32602) on every wire (decisions).
    expect((missing as ProtocolError).code).toBe(-32602);
  });

  it("progress, log messages and sampling reach the client through a prefixed tool", async () => {
    let progress = 0;
    await client.request(
      { method: "tools/call", params: { name: "ref__test_tool_with_progress", arguments: {} } },
      { onprogress: () => progress++ },
    );
    expect(progress).toBe(3);
    await client.setLoggingLevel("info");
    await client.callTool({ name: "ref__test_tool_with_logging", arguments: {} });
    await until("three log messages", () => seen.logs.length >= 3);
    expect(seen.logs.slice(0, 3)).toEqual([
      "Tool execution started",
      "Tool processing data",
      "Tool execution completed",
    ]);
    const sampled = await client.callTool({
      name: "ref__test_sampling",
      arguments: { prompt: "hi" },
    });
    expect(textOf(sampled)).toBe("LLM response: sampled");
    expect(seen.sampling).toBe(1);
  });

  it("subscribe updates reach the subscribed client", async () => {
    await client.subscribeResource({ uri: "test://watched-resource" });
    await client.callTool({
      name: "ref__touch_resource",
      arguments: { uri: "test://watched-resource" },
    });
    await until("resources/updated", () => seen.updates.includes("test://watched-resource"));
    await client.unsubscribeResource({ uri: "test://watched-resource" });
    const after = await client.callTool({
      name: "ref__touch_resource",
      arguments: { uri: "test://watched-resource" },
    });
    expect(textOf(after)).toBe("test://watched-resource has no subscriber");
  });

  it("a prompt list change is recorded as registry events, replayable, and sent as list_changed", async () => {
    await client.callTool({ name: "ref__add_prompt", arguments: { name: "fresh" } });
    await until("prompts/list_changed", () => seen.promptChanges > 0);
    await session.settled();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain("ref__fresh");
    const log = (await session.store.readStream(session.registryStreamId)).map((s) => s.event);
    expect(log.map((e) => e.type)).toEqual(
      expect.arrayContaining(["PromptsInvalidated", "PromptsFetched"]),
    );
    expect(catalog(replay(log)).prompts.map((p) => p.publicName)).toContain("ref__fresh");
  });

  it("G2: an unknown tool is a protocol error (-32602) with close names; a deferred one is a tool error (D9)", async () => {
    const unknown = await client
      .callTool({ name: "ref__test_simple_txt", arguments: {} })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(ProtocolError);
    expect((unknown as ProtocolError).code).toBe(ProtocolErrorCode.InvalidParams);
    expect((unknown as ProtocolError).message).toContain("ref__test_simple_text");
    const deferred = (await client.callTool({
      name: "ref__test_simple_text",
      arguments: {},
    })) as CallToolResult;
    expect(deferred.isError).toBe(true);
    expect(textOf(deferred)).toContain("enable_tools");
  });

  it("the server's instructions reach the client", () => {
    expect(client.getInstructions()).toContain("The toolledger conformance reference server");
  });
});

describe("G1 sampling goes to the client whose call caused it", () => {
  it("of two clients that both declare sampling, only the caller is asked", async () => {
    const host = await openHost();
    await host.addExtension(shipped("ref", "reference"));
    const gateway = await serveGatewayHttp(host, { port: 0 });
    const asked = { a: 0, b: 0 };
    const connectClient = async (who: "a" | "b") => {
      const c = new Client(
        { name: `client-${who}`, version: "1.0.0" },
        { capabilities: { sampling: {} } },
      );
      c.setRequestHandler("sampling/createMessage", () => {
        asked[who]++;
        return { role: "assistant", content: { type: "text", text: `from ${who}` }, model: "m" };
      });
      await c.connect(new StreamableHTTPClientTransport(gateway.url));
      return c;
    };
    const a = await connectClient("a");
    const b = await connectClient("b");
    try {
      const fromB = await b.callTool({ name: "ref__test_sampling", arguments: { prompt: "hi" } });
      const fromA = await a.callTool({ name: "ref__test_sampling", arguments: { prompt: "hi" } });
      expect(textOf(fromA)).toBe("LLM response: from a");
      expect(textOf(fromB)).toBe("LLM response: from b");
      expect(asked).toEqual({ a: 1, b: 1 });
    } finally {
      await a.close();
      await b.close();
      await gateway.close();
      await host.close();
    }
  });
});

describe("G1 sampling for a client that did not declare it", () => {
  it("the server gets the standard not-supported error, and the client the server's failure", async () => {
    const session = await openStandaloneConversation();
    await session.addExtension(shipped("ref", "reference"));
    const gateway = await serveGatewayHttp(session, { port: 0 });
    const client = new Client({ name: "no-sampling", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(gateway.url));
      const error = await client
        .callTool({ name: "ref__test_sampling", arguments: { prompt: "hi" } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).message).toContain("Client does not support sampling");
    } finally {
      await client.close();
      await gateway.close();
      await session.close();
    }
  });
});
