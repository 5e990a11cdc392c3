import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  connectEraClient,
  ERA_CLIENTS,
  type EraClient,
  type EraClientKind,
} from "../../testing/eraClients.js";
import { shippedServer } from "../../testing/sdkServeClient.js";
import { runCli, tempDir } from "../../testing/spawnCli.js";
import { startServeHttp } from "../../testing/startServe.js";

// V1 (issue 36, downstream): the built `toolledger serve` answers 2026-07-28 clients and
// 2025-era clients on the same stdio and the same HTTP endpoint: SDK 2 pinned to 2026-07-28,
// SDK 2 `auto`, SDK 2 legacy and SDK 1 each list, call, and hear of a tool added upstream
// (a modern client on its `subscriptions/listen` stream).

const config = { mcpServers: { ch: shippedServer("changing") } };
const POLL = { timeout: 20_000, interval: 100 };
const expectedEra = (kind: EraClientKind) =>
  kind === "modern" || kind === "auto" ? "modern" : "legacy";

/** What every client must be able to do: its era, the gateway's identity, a list and a call. */
async function listsAndCalls(c: EraClient): Promise<void> {
  expect(c.era).toBe(expectedEra(c.kind));
  expect(c.serverInfo?.name).toBe("toolledger");
  expect(c.capabilities?.tools).toEqual({ listChanged: true });
  expect(await c.names()).toContain("ch__ping");
  expect(await c.call("ch__ping")).toEqual({ text: "pong", isError: false });
}

/** After a tool was added upstream: the client is told, lists it and calls it. */
async function seesAdded(c: EraClient, tool: string, before: number): Promise<void> {
  await expect.poll(() => c.changes(), POLL).toBeGreaterThan(before);
  await expect.poll(() => c.names(), POLL).toContain(`ch__${tool}`);
  expect(await c.call(`ch__${tool}`)).toEqual({ text: `${tool} ran`, isError: false });
}

/** The events of stream `id` of a serve run's database (`toolledger export`). */
async function eventsOf(dir: string, id: string): Promise<Record<string, unknown>[]> {
  const r = await runCli(["export", id, "--db", join(dir, "s.db")], { cwd: dir });
  expect(r.stderr).toBe("");
  return r.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { session: string; event: Record<string, unknown> })
    .filter((e) => e.session === id)
    .map((e) => e.event);
}

async function conversationsOf(dir: string): Promise<{ session: string; client: string }[]> {
  const r = await runCli(["sessions", "--json", "--db", join(dir, "s.db")], { cwd: dir });
  return (JSON.parse(r.stdout) as { session: string; kind: string; client: string }[]).filter(
    (s) => s.kind === "conversation",
  );
}

describe("V1: both protocol eras through the built `toolledger serve`", () => {
  test("V1 over stdio: each client era lists, calls and hears of a tool added upstream", async () => {
    for (const kind of ERA_CLIENTS) {
      const dir = tempDir();
      const c = await connectEraClient(kind, { dir, config });
      try {
        await listsAndCalls(c);
        const before = c.changes();
        expect(await c.call("ch__add_tool", { name: `fresh_${kind}` })).toEqual({
          text: `added fresh_${kind}`,
          isError: false,
        });
        await seesAdded(c, `fresh_${kind}`, before);
      } catch (error) {
        throw new Error(`${kind} client over stdio: ${String(error)}\n${c.stderr()}`);
      } finally {
        await c.close();
      }
    }
  }, 120_000);

  test("V1/C5 over stdio: a 2026-07-28 client's conversation records its envelope's client and version, and its calls (C4)", async () => {
    const dir = tempDir();
    const c = await connectEraClient("modern", { dir, config }, "envelope-client");
    try {
      await c.call("ch__ping");
    } finally {
      await c.close();
    }
    const [conversation] = await conversationsOf(dir);
    expect(conversation?.client).toBe("envelope-client 1.0.0");
    const events = await eventsOf(dir, conversation!.session);
    expect(events[0]).toMatchObject({
      type: "ConversationStarted",
      client: { name: "envelope-client", version: "1.0.0" },
      protocolVersion: "2026-07-28",
      transport: "stdio",
    });
    expect(events.map((e) => e.type)).toEqual([
      "ConversationStarted",
      "ToolCallStarted",
      "ToolCallFinished",
      "ConversationClosed",
    ]);
  }, 60_000);

  test("V1/V3 over HTTP: the four clients on one endpoint at once list (in one order), call and hear of a tool added upstream", async () => {
    const dir = tempDir();
    const serve = await startServeHttp(
      ["--config", configFile(dir), "--db", join(dir, "s.db")],
      dir,
    );
    const clients: EraClient[] = [];
    try {
      for (const kind of ERA_CLIENTS)
        clients.push(await connectEraClient(kind, { url: serve.url }));
      for (const c of clients) await listsAndCalls(c);
      const initialOrder = await clients[0]!.order();
      const before = clients.map((c) => c.changes());
      expect(await clients[0]!.call("ch__add_tool", { name: "fresh" })).toEqual({
        text: "added fresh",
        isError: false,
      });
      for (const [i, c] of clients.entries()) await seesAdded(c, "fresh", before[i]!);
      // V3: one order for every client of either era, byte-wise by served name (D4); the
      // added tool took its sorted place and the others kept theirs.
      const orders = await Promise.all(clients.map((c) => c.order()));
      const bytewise = [...orders[0]!].sort((a, b) =>
        Buffer.compare(Buffer.from(a), Buffer.from(b)),
      );
      for (const order of orders) expect(order).toEqual(bytewise);
      expect(bytewise.filter((n) => n !== "ch__fresh")).toEqual(initialOrder);
    } catch (error) {
      throw new Error(`${String(error)}\nserve's stderr:\n${serve.stderr()}`);
    } finally {
      await Promise.allSettled(clients.map((c) => c.close()));
      expect(await serve.stop()).toBe(130);
    }
    // Four conversations: two sessions (2025) and the endpoint's one for both modern clients.
    const conversations = await conversationsOf(dir);
    expect(conversations.map((c) => c.client).sort()).toEqual([
      "legacy-client 1.0.0",
      "modern-client 1.0.0",
      "v1-client 1.0.0",
    ]);
  }, 120_000);

  test("V1 over HTTP: a 2026-07-28 request is checked as the spec says (-32020, -32022 with the supported list, 404, 405), discover and lists carry resultType and cache hints, no session", async () => {
    const dir = tempDir();
    const serve = await startServeHttp(
      ["--config", configFile(dir), "--db", join(dir, "s.db")],
      dir,
    );
    try {
      const url = serve.url;
      const ok = await rpc(url, "server/discover");
      expect(ok.status).toBe(200);
      expect(ok.headers.get("mcp-session-id")).toBeNull();
      const discover = (ok.json as { result: Record<string, unknown> }).result;
      expect(discover).toMatchObject({
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: { listChanged: true }, prompts: { listChanged: true } },
        resultType: "complete",
        cacheScope: "private",
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "toolledger" } },
      });
      expect(typeof discover.ttlMs).toBe("number");
      const list = await rpc(url, "tools/list");
      expect((list.json as { result: Record<string, unknown> }).result).toMatchObject({
        resultType: "complete",
        cacheScope: "private",
        ttlMs: 5000,
      });
      const mismatch = await rpc(url, "tools/list", { "mcp-method": "prompts/list" });
      expect([mismatch.status, errorCode(mismatch.json)]).toEqual([400, -32020]);
      const future = await rpc(url, "tools/list", {}, "2099-01-01");
      expect([future.status, errorCode(future.json)]).toEqual([400, -32022]);
      expect((future.json as { error: { data: unknown } }).error.data).toMatchObject({
        supported: ["2026-07-28"],
      });
      const unknown = await rpc(url, "no/such_method");
      expect([unknown.status, errorCode(unknown.json)]).toEqual([404, -32601]);
      const get = await fetch(url, { headers: { accept: "text/event-stream" } });
      expect(get.status).toBe(405);
      // A 2025 client's initialize on the same endpoint still opens a session.
      const init = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "raw", version: "1" },
          },
        }),
      });
      expect(init.status).toBe(200);
      expect(init.headers.get("mcp-session-id")).toBeTruthy();
    } finally {
      expect(await serve.stop()).toBe(130);
    }
  }, 60_000);
});

function configFile(dir: string): string {
  const file = join(dir, "mcp.json");
  writeFileSync(file, JSON.stringify(config));
  return file;
}

const errorCode = (json: unknown): number | undefined =>
  (json as { error?: { code?: number } }).error?.code;

/** One raw 2026-07-28 request: the envelope, and the standard headers unless overridden. */
async function rpc(
  url: string,
  method: string,
  headers: Record<string, string> = {},
  version = "2026-07-28",
): Promise<{ status: number; headers: Headers; json: unknown }> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": version,
      "mcp-method": method,
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method,
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": version,
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  return { status: res.status, headers: res.headers, json: await res.json() };
}
