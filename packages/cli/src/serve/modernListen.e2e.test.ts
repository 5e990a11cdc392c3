import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { connectEraClient, type EraClient } from "../../testing/eraClients.js";
import { shippedServer } from "../../testing/sdkServeClient.js";
import { tempDir } from "../../testing/spawnCli.js";
import { startServeHttp } from "../../testing/startServe.js";

// V1 (issue 36, downstream): a 2026-07-28 client hears of changes on the
// `subscriptions/listen` stream it opened (acknowledged first, its filter honoured, each
// notification tagged with its subscription id), fed by the gateway's own list_changed (from
// an upstream's list_changed); and gets a server's log messages only for a request whose
// envelope asks for them (`logLevel`), through the built `toolledger serve`.

const config = {
  mcpServers: { ch: shippedServer("changing"), ref: shippedServer("reference") },
};
const POLL = { timeout: 20_000, interval: 100 };
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
const LOG_LEVEL = "io.modelcontextprotocol/logLevel";

function configFile(dir: string): string {
  const file = join(dir, "mcp.json");
  writeFileSync(file, JSON.stringify(config));
  return file;
}

/** The JSON-RPC messages of an SSE response, as they arrive. */
function sseMessages(res: Response): { messages: Record<string, unknown>[]; stop: () => void } {
  const messages: Record<string, unknown>[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end !== -1) {
        const data = buffer
          .slice(0, end)
          .split("\n")
          .filter((l) => l.startsWith("data:"))
          .map((l) => l.slice(5).trim())
          .join("");
        if (data) messages.push(JSON.parse(data) as Record<string, unknown>);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf("\n\n");
      }
    }
  })();
  return { messages, stop: () => void reader.cancel().catch(() => {}) };
}

const methods = (messages: Record<string, unknown>[]) => messages.map((m) => m.method);

describe("V1: subscriptions/listen and logLevel for 2026-07-28 clients", () => {
  test("V1 over HTTP: a listen stream is acknowledged first, hears only the kinds its filter names, each tagged with its id", async () => {
    const dir = tempDir();
    const serve = await startServeHttp(
      ["--config", configFile(dir), "--db", join(dir, "s.db")],
      dir,
    );
    let stream: ReturnType<typeof sseMessages> | null = null;
    let client: EraClient | null = null;
    try {
      const url = `${serve.url}/c/listener`;
      const meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "raw-listener", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      };
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "subscriptions/listen",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: "listen-1",
          method: "subscriptions/listen",
          params: { notifications: { toolsListChanged: true }, _meta: meta },
        }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/event-stream");
      stream = sseMessages(res);
      await expect.poll(() => stream!.messages.length, POLL).toBeGreaterThan(0);
      expect(stream.messages[0]).toMatchObject({
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: { [SUBSCRIPTION_ID]: "listen-1" } },
      });
      // A client of the same conversation changes a prompt (not asked for), then a tool.
      client = await connectEraClient("modern", { url }, "changer");
      await client.call("ref__add_prompt", { name: "fresh_prompt" });
      await expect
        .poll(
          async () =>
            (await (client!.client as never as PromptLister).listPrompts()).prompts.map(
              (p) => p.name,
            ),
          POLL,
        )
        .toContain("ref__fresh_prompt");
      await client.call("ch__add_tool", { name: "fresh" });
      await expect
        .poll(() => methods(stream!.messages), POLL)
        .toContain("notifications/tools/list_changed");
      expect(methods(stream.messages)).not.toContain("notifications/prompts/list_changed");
      for (const m of stream.messages.slice(1))
        expect((m.params as { _meta?: Record<string, unknown> })?._meta?.[SUBSCRIPTION_ID]).toBe(
          "listen-1",
        );
    } catch (error) {
      throw new Error(`${String(error)}\nserve's stderr:\n${serve.stderr()}`);
    } finally {
      stream?.stop();
      await client?.close();
      expect(await serve.stop()).toBe(130);
    }
  }, 60_000);

  test("V1 over stdio: the SDK client's listen with a prompts-only filter hears prompts, not tools; notifications carry the subscription id", async () => {
    const dir = tempDir();
    const c = await connectEraClient("modern", { dir, config });
    const heard: { method: string; id: unknown }[] = [];
    const note = (method: string) => (n: { params?: { _meta?: Record<string, unknown> } }) => {
      heard.push({ method, id: n.params?._meta?.[SUBSCRIPTION_ID] });
    };
    const client = c.client as never as ListeningClient;
    client.setNotificationHandler("notifications/tools/list_changed", note("tools"));
    client.setNotificationHandler("notifications/prompts/list_changed", note("prompts"));
    try {
      // connectEraClient's own listen asks for tools; this one for prompts only.
      const sub = await client.listen({ promptsListChanged: true });
      expect(sub.honoredFilter).toEqual({ promptsListChanged: true });
      await c.call("ch__add_tool", { name: "fresh" });
      await expect.poll(() => c.names(), POLL).toContain("ch__fresh");
      await expect.poll(() => heard.some((h) => h.method === "tools"), POLL).toBe(true);
      await c.call("ref__add_prompt", { name: "fresh_prompt" });
      await expect
        .poll(() => heard.filter((h) => h.method === "prompts").length, POLL)
        .toBeGreaterThan(0);
      // Each kind came on one subscription only, tagged with its id: tools on the tools
      // listen, prompts on the prompts-only one (the filter honoured, nothing sent twice).
      const idsOf = (method: string) =>
        new Set(heard.filter((h) => h.method === method).map((h) => h.id));
      expect(idsOf("tools").size).toBe(1);
      expect(idsOf("prompts").size).toBe(1);
      expect([...idsOf("tools")][0]).not.toBe([...idsOf("prompts")][0]);
      expect(heard.every((h) => typeof h.id === "string" && h.id !== "")).toBe(true);
    } catch (error) {
      throw new Error(`${String(error)}\nserve's stderr:\n${c.stderr()}`);
    } finally {
      await c.close();
    }
  }, 60_000);

  test("V1 logLevel: a server's log messages reach a 2026-07-28 client only for a request whose envelope asks for them, at that level or above (HTTP and stdio)", async () => {
    const dir = tempDir();
    const serve = await startServeHttp(
      ["--config", configFile(dir), "--db", join(dir, "s.db")],
      dir,
    );
    const clients: EraClient[] = [];
    try {
      clients.push(await connectEraClient("modern", { url: serve.url }));
      clients.push(await connectEraClient("modern", { dir: tempDir(), config }));
      for (const c of clients) {
        const logged: unknown[] = [];
        (c.client as never as ListeningClient).setNotificationHandler(
          "notifications/message",
          (n: { params?: unknown }) => void logged.push(n.params),
        );
        const callWith = async (level?: string) => {
          logged.length = 0;
          const r = await (c.client as never as Caller).callTool({
            name: "ref__test_tool_with_logging",
            arguments: {},
            ...(level ? { _meta: { [LOG_LEVEL]: level } } : {}),
          });
          expect(r.isError).toBeFalsy();
          return logged.length;
        };
        expect(await callWith()).toBe(0);
        expect(await callWith("warning")).toBe(0);
        expect(await callWith("info")).toBe(3);
        expect(await callWith("debug")).toBe(3);
      }
    } catch (error) {
      throw new Error(
        `${String(error)}\nserve's stderr:\n${serve.stderr()}${clients[1]?.stderr() ?? ""}`,
      );
    } finally {
      await Promise.allSettled(clients.map((c) => c.close()));
      expect(await serve.stop()).toBe(130);
    }
  }, 60_000);
});

interface PromptLister {
  listPrompts(): Promise<{ prompts: { name: string }[] }>;
}
interface ListeningClient {
  setNotificationHandler(method: string, handler: (n: never) => void): void;
  listen(filter: Record<string, unknown>): Promise<{ honoredFilter: unknown }>;
}
interface Caller {
  callTool(params: Record<string, unknown>): Promise<{ isError?: boolean }>;
}
