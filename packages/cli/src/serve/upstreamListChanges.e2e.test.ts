import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  resultText,
  type SdkClientOfServe,
  serveOverStdio,
  shippedServer,
} from "../../testing/sdkServeClient.js";
import { runCli, tempDir } from "../../testing/spawnCli.js";

// Issue 20.1 (R11): an upstream tools/list_changed reaches the client of the built `serve`,
// with the MCP SDK's own client, eager and under lookup deferral, through a storm too.

const lines = (file: string) => {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
};

async function withServe(
  config: object,
  args: string[],
  body: (c: SdkClientOfServe, dir: string) => Promise<void>,
  dir = tempDir(),
): Promise<void> {
  const c = await serveOverStdio(dir, config, args);
  try {
    await body(c, dir);
  } finally {
    await c.close();
  }
}

/** The registry stream of a serve run, replayed (R11 steps as a user reads them). */
async function replayRegistry(dir: string): Promise<string> {
  const sessions = await runCli(["sessions", "--all", "--json", "--db", join(dir, "s.db")], {
    cwd: dir,
  });
  const registry = (JSON.parse(sessions.stdout) as { session: string; kind: string }[]).find(
    (s) => s.kind === "registry",
  );
  if (!registry) throw new Error(`no registry stream: ${sessions.stdout}${sessions.stderr}`);
  const r = await runCli(["replay", registry.session, "--db", join(dir, "s.db")], { cwd: dir });
  expect(r.stderr).toBe("");
  return r.stdout;
}

describe("upstream tools/list_changed through `toolledger serve` (R11, issue 20.1)", () => {
  test("eager: added and removed tools of the changing server follow in the client's list", async () => {
    await withServe({ mcpServers: { ch: shippedServer("changing") } }, [], async (c, dir) => {
      // Ready first (the first list's wait is issue 20.2's, tested on its own).
      expect(await c.until((n) => n.includes("ch__ping"), "ch ready")).not.toContain("ch__fresh");
      await c.client.callTool({ name: "ch__add_tool", arguments: { name: "fresh" } });
      await c.until((n) => n.includes("ch__fresh"), "ch__fresh in the client's list");
      const ran = await c.client.callTool({ name: "ch__fresh", arguments: {} });
      expect(resultText(ran)).toBe("fresh ran");
      await c.client.callTool({ name: "ch__remove_tool", arguments: { name: "fresh" } });
      await c.until((n) => !n.includes("ch__fresh"), "ch__fresh gone from the client's list");
      expect(await c.names()).toContain("ch__ping");
      // R11 in the log: each change invalidated, then a fetch followed it.
      const replay = await replayRegistry(dir);
      expect(replay).toContain("ch said tools/list_changed");
      expect(replay).toContain("+ 1 tool(s) from ch: ch__fresh");
      expect(replay).toContain("- 1 tool(s) from ch: ch__fresh");
    });
  }, 60_000);

  test("lookup: an added tool becomes a deferred name the model can enable; a removed one leaves", async () => {
    await withServe(
      { mcpServers: { ch: shippedServer("changing") } },
      ["--deferral", "lookup"],
      async (c) => {
        const described = async () => {
          const tools = (await c.client.listTools()).tools;
          return tools.find((t) => t.name === "enable_tools")?.description ?? "";
        };
        expect(await c.names()).toEqual(["enable_tools"]);
        const enabled = await c.client.callTool({
          name: "enable_tools",
          arguments: { names: ["ch__add_tool", "ch__remove_tool"] },
        });
        expect(enabled.isError).toBeFalsy();
        await c.client.callTool({ name: "ch__add_tool", arguments: { name: "fresh" } });
        await c.until(() => true, "a list");
        await expect.poll(described, { timeout: 20_000, interval: 100 }).toContain("ch__fresh");
        await c.client.callTool({ name: "enable_tools", arguments: { names: ["ch__fresh"] } });
        await c.until((n) => n.includes("ch__fresh"), "ch__fresh enabled");
        expect(resultText(await c.client.callTool({ name: "ch__fresh", arguments: {} }))).toBe(
          "fresh ran",
        );
        await c.client.callTool({ name: "ch__remove_tool", arguments: { name: "fresh" } });
        await c.until((n) => !n.includes("ch__fresh"), "ch__fresh gone");
        expect(await described()).not.toContain("ch__fresh");
      },
    );
  }, 60_000);

  test("a notification 200 ms after the call's answer (a raw JSON-RPC server) is acted on", async () => {
    await withServe({ mcpServers: { raw: shippedServer("storm") } }, [], async (c) => {
      await c.until((n) => n.includes("raw__add"), "raw ready");
      const answer = await c.client.callTool({ name: "raw__add", arguments: { name: "late" } });
      expect(resultText(answer)).toBe("adding late in 200 ms");
      await c.until((n) => n.includes("raw__late"), "raw__late");
      expect(resultText(await c.client.callTool({ name: "raw__late", arguments: {} }))).toBe(
        "late ran",
      );
    });
  }, 60_000);

  test("a storm of 1,000 list_changed ends in a few refetches and the final list", async () => {
    const dir = tempDir();
    const log = join(dir, "lists.log");
    writeFileSync(log, "");
    await withServe(
      {
        mcpServers: {
          raw: shippedServer("storm", "--list-log", log),
          ch: shippedServer("changing"),
        },
      },
      [],
      async (c) => {
        await c.until((n) => n.includes("raw__storm") && n.includes("ch__ping"), "both ready");
        const before = lines(log);
        await c.client.callTool({
          name: "raw__storm",
          arguments: { count: 1000, name: "after_storm" },
        });
        await c.until((n) => n.includes("raw__after_storm"), "raw__after_storm", 30_000);
        // Quiet for a while: nothing more is fetched once the list is current.
        await new Promise((r) => setTimeout(r, 1_500));
        const refetches = lines(log) - before;
        expect(refetches).toBeGreaterThanOrEqual(1);
        expect(refetches).toBeLessThanOrEqual(4);
        expect(await c.names()).toContain("raw__after_storm");
        // The other server was not refetched for raw's storm (R11, issue 20.3).
        const replay = await replayRegistry(dir);
        expect(replay).not.toMatch(/stale fetch of ch/);
        const invalidations = replay.match(/raw said tools\/list_changed/g) ?? [];
        expect(invalidations.length).toBeGreaterThanOrEqual(1);
        expect(invalidations.length).toBeLessThanOrEqual(refetches + 1);
      },
      dir,
    );
  }, 90_000);
});
