import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionConnection, fetchTools } from "@toolledger/adapters-mcp";
import { describe, expect, test } from "vitest";
import { CLI, cleanEnv, SERVERS } from "../../testing/spawnCli.js";

// `toolledger serve` over stdio with servers that are slow, hung or flaky, and a real MCP
// client (the SDK's, through the adapters) that lists tools as a host does.
const server = (script: string, ...args: string[]) => ({
  command: process.execPath,
  args: [join(SERVERS, `${script}.js`), ...args],
});

async function connect(dir: string, config: object) {
  const file = join(dir, "mcp.json");
  writeFileSync(file, JSON.stringify(config));
  let changes = 0;
  let onChange = () => {};
  const gateway = await ExtensionConnection.connect(
    {
      type: "stdio",
      name: "gateway",
      command: process.execPath,
      args: [CLI, "serve", "--config", file, "--db", join(dir, "s.db")],
      env: cleanEnv(dir),
    },
    {
      // The MCP SDK client's default request timeout: what a host waits at most.
      connectTimeoutMs: 60_000,
      onListChanged: () => {
        changes++;
        onChange();
      },
    },
  );
  const list = async () =>
    (await fetchTools(gateway, { requestTimeoutMs: 60_000, maxPages: 5 })).tools.map((t) => t.name);
  /** Lists again on every tools/list_changed until `done` holds for the list. */
  const until = (done: (names: string[]) => boolean) =>
    new Promise<string[]>((resolve, reject) => {
      onChange = () => {
        list().then((names) => {
          if (done(names)) resolve(names);
        }, reject);
      };
    });
  return { gateway, list, until, changes: () => changes, stderr: () => gateway.stderrTail };
}

describe("serve with servers that are slow, hung or flaky", () => {
  test("answers initialize and tools/list while a server never initialises and another never lists", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolledger-hung-"));
    const client = await connect(dir, {
      // Issue 20.2: the first tools/list waits for them up to their startup grace only.
      toolledger: { start_timeout: 300, startup_grace: 2 },
      mcpServers: {
        notes: server("notes"),
        noinit: server("slowStart", "--hang-init"),
        nolist: server("faulty", "--hang-list"),
      },
    });
    try {
      const joined = client.until((names) => names.includes("notes__add_note"));
      const first = await client.list();
      // Answered while both hung servers still hang (their timeouts are minutes away).
      expect(first.some((n) => n.startsWith("noinit__") || n.startsWith("nolist__"))).toBe(false);
      // Said once the first list is answered (stderr may trail the answer a little).
      await expect
        .poll(client.stderr, { timeout: 10_000 })
        .toMatch(/still starting after the startup grace: [^)]*noinit/);
      expect(client.stderr()).not.toContain("giving up");
      const names = first.includes("notes__add_note") ? first : await joined;
      expect(names).toContain("notes__add_note");
      expect(names.some((n) => n.startsWith("noinit__") || n.startsWith("nolist__"))).toBe(false);
    } finally {
      await client.gateway.close();
    }
  }, 120_000);

  test("a server that comes up after 40 s joins with tools/list_changed; one that crashes twice within its grace is in the first list", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolledger-late-"));
    const client = await connect(dir, {
      mcpServers: {
        notes: server("notes"),
        late: server("slowStart", "--delay-ms", "40000", "--name", "late"),
        flaky: {
          ...server(
            "slowStart",
            "--crash-first",
            "2",
            "--state",
            join(dir, "starts"),
            "--name",
            "flaky",
          ),
          // Three starts on a loaded machine take a while: a grace of its own covers them.
          startup_grace: 60,
          // Pinned legacy: an `auto` probe would spend a start on the SDK's sibling process (V1).
          protocol_era: "legacy",
        },
      },
    });
    try {
      const both = client.until(
        (names) => names.includes("late__ping") && names.includes("flaky__ping"),
      );
      const first = await client.list();
      expect(first).not.toContain("late__ping");
      // Restarted after 1 and 2 s, within its startup grace (issue 20.2).
      expect(first).toContain("flaky__ping");
      const names = await both;
      expect(names).toEqual(
        expect.arrayContaining(["notes__add_note", "late__ping", "flaky__ping"]),
      );
      expect(client.changes()).toBeGreaterThanOrEqual(1);
      expect(client.stderr()).toContain("flaky is ready (1 tool(s)) after 3 attempts");
      expect(client.stderr()).toContain("late is ready (1 tool(s))");
      const pong = await client.gateway.callTool("late__ping", {}, { timeoutMs: 20_000 });
      expect(pong.content).toEqual([{ type: "text", text: "pong from late" }]);
    } finally {
      await client.gateway.close();
    }
  }, 150_000);
});
