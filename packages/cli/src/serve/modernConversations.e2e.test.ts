import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { connectEraClient, type EraClient } from "../../testing/eraClients.js";
import { shippedServer } from "../../testing/sdkServeClient.js";
import { runCli, tempDir } from "../../testing/spawnCli.js";
import { startServeHttp } from "../../testing/startServe.js";

// V1/C2 (issue 36, downstream): a 2026-07-28 client has no session, so its conversation is
// named by the endpoint's path over HTTP (`/mcp/c/<id>`) and is its connection over stdio;
// deferral (D5, S1) works for it end to end through the built `toolledger serve`: search,
// enable, the listen stream says the list changed, the call reaches the server, and another
// conversation's list stays as it was.

const config = { mcpServers: { ch: shippedServer("changing") } };
const POLL = { timeout: 20_000, interval: 100 };
const BUILT_INS = ["enable_tools", "search_tools"];

const found = (r: unknown): string[] =>
  (
    ((r as { structuredContent?: { tools?: unknown } }).structuredContent?.tools ?? []) as {
      name: string;
    }[]
  ).map((t) => t.name);

/** S1 → D5 → D9: search finds ch__ping, a call before enabling is refused, enabled it runs. */
async function searchEnableCall(c: EraClient): Promise<void> {
  expect(c.era).toBe("modern");
  expect(await c.names()).toEqual(BUILT_INS);
  const searched = await c.client.callTool({ name: "search_tools", arguments: { query: "ping" } });
  expect(found(searched)).toContain("ch__ping");
  expect((await c.call("ch__ping")).isError).toBe(true);
  const before = c.changes();
  expect(await c.call("enable_tools", { names: ["ch__ping"] })).toMatchObject({ isError: false });
  await expect.poll(() => c.changes(), POLL).toBeGreaterThan(before);
  expect(await c.names()).toEqual(["ch__ping", ...BUILT_INS]);
  expect(await c.call("ch__ping")).toEqual({ text: "pong", isError: false });
}

async function eventTypes(dir: string, id: string): Promise<Record<string, unknown>[]> {
  const r = await runCli(["export", id, "--db", join(dir, "s.db")], { cwd: dir });
  expect(r.stderr).toBe("");
  return r.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { session: string; event: Record<string, unknown> })
    .filter((e) => e.session === id)
    .map((e) => e.event);
}

describe("V1/C2: a 2026-07-28 client's conversation, deferral included", () => {
  test("V1/C2 over HTTP: /mcp/c/<id> names the conversation; search → enable → call; another conversation's list is untouched; the same path later is the same conversation", async () => {
    const dir = tempDir();
    const file = join(dir, "mcp.json");
    writeFileSync(file, JSON.stringify(config));
    const serve = await startServeHttp(
      ["--config", file, "--db", join(dir, "s.db"), "--deferral", "search"],
      dir,
    );
    const clients: EraClient[] = [];
    const connect = async (path: string) => {
      const c = await connectEraClient("modern", { url: `${serve.url}${path}` }, `at-${path}`);
      clients.push(c);
      return c;
    };
    try {
      const alpha = await connect("/c/alpha");
      const beta = await connect("/c/beta");
      expect(await beta.names()).toEqual(BUILT_INS);
      await searchEnableCall(alpha);
      // C2: beta's conversation enabled nothing, and was not told of alpha's change.
      expect(await beta.names()).toEqual(BUILT_INS);
      expect(beta.changes()).toBe(0);
      expect((await beta.call("ch__ping")).isError).toBe(true);
      // A new client on alpha's path continues alpha's conversation (no session needed).
      const again = await connect("/c/alpha");
      expect(await again.names()).toEqual(["ch__ping", ...BUILT_INS]);
      expect(await again.call("ch__ping")).toEqual({ text: "pong", isError: false });
    } catch (error) {
      throw new Error(`${String(error)}\nserve's stderr:\n${serve.stderr()}`);
    } finally {
      await Promise.allSettled(clients.map((c) => c.close()));
      expect(await serve.stop()).toBe(130);
    }
    const alpha = await eventTypes(dir, "alpha");
    expect(alpha[0]).toMatchObject({
      type: "ConversationStarted",
      client: { name: "at-/c/alpha" },
      protocolVersion: "2026-07-28",
      transport: "streamable_http",
    });
    const types = alpha.map((e) => e.type);
    for (const t of ["ToolsSearched", "EnableToolsRequested", "EnableToolsResponded"])
      expect(types).toContain(t);
    // search_tools, the refused ch__ping, enable_tools, ch__ping, and ch__ping again.
    expect(types.filter((t) => t === "ToolCallFinished").length).toBe(5);
    expect(types.at(-1)).toBe("ConversationClosed");
    expect((await eventTypes(dir, "beta")).map((e) => e.type)).not.toContain(
      "EnableToolsRequested",
    );
  }, 90_000);

  test("V1/C2 over stdio: the connection is the conversation; search → enable → call", async () => {
    const dir = tempDir();
    const c = await connectEraClient("modern", { dir, config, args: ["--deferral", "search"] });
    try {
      await searchEnableCall(c);
    } catch (error) {
      throw new Error(`${String(error)}\nserve's stderr:\n${c.stderr()}`);
    } finally {
      await c.close();
    }
  }, 60_000);
});
