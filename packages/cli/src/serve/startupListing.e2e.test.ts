import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { publishedServer, serveOverStdio, shippedServer } from "../../testing/sdkServeClient.js";
import { runCli, tempDir } from "../../testing/spawnCli.js";

// Issue 20.3 (R11): each server is listed once at startup, counted by the tools/list
// requests it receives; one server's list change refetches that server only.

const requests = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean).length;

test("one listing per server at startup, and a change of one server refetches it alone", async () => {
  const dir = tempDir();
  const pagedLog = join(dir, "paged.log");
  const loopLog = join(dir, "loop.log");
  const changingLog = join(dir, "changing.log");
  for (const f of [pagedLog, loopLog, changingLog]) writeFileSync(f, "");
  const memories = Object.fromEntries(
    Array.from({ length: 6 }, (_, i) => [`mem${i + 1}`, publishedServer("memory", dir)]),
  );
  const c = await serveOverStdio(dir, {
    // A loaded machine starts seven Node servers slowly: this test is about counts, not time.
    toolledger: { startup_grace: 120 },
    mcpServers: {
      // 5,000 tools in 100 pages of 50.
      paged: shippedServer("paged", "--tools", "5000", "--page-size", "50", "--list-log", pagedLog),
      // A cursor that never ends: the pagination guard stops it at 100 pages.
      loop: shippedServer("cursorLoop", "--mode", "endless", "--list-log", loopLog),
      ch: shippedServer("changing", "--list-log", changingLog),
      // server-everything says list_changed right after it started (issue 20.3's trigger).
      everything: publishedServer("everything", dir),
      ...memories,
    },
  });
  try {
    // Every server listed (the first list's wait is issue 20.2's, tested on its own).
    const first = await c.until(
      (n) => n.includes("everything__echo") && n.filter((t) => t.startsWith("mem")).length >= 54,
      "every server listed",
      120_000,
    );
    expect(first.filter((n) => n.startsWith("paged__"))).toHaveLength(5000);
    for (let i = 1; i <= 6; i++) expect(first).toContain(`mem${i}__create_entities`);
    expect(first).toContain("everything__echo");
    expect(requests(pagedLog)).toBe(100);
    expect(requests(loopLog)).toBe(100);
    expect(requests(changingLog)).toBe(1);

    await c.client.callTool({ name: "ch__add_tool", arguments: { name: "fresh" } });
    await c.until((n) => n.includes("ch__fresh"), "ch__fresh", 60_000);
    expect(requests(changingLog)).toBe(2);
    expect(requests(pagedLog)).toBe(100);
    expect(requests(loopLog)).toBe(100);
  } finally {
    await c.close();
  }
  // R11 in the log: everything's own announcement may make its own first fetch stale; no
  // other server's fetch went stale for it.
  const db = join(dir, "s.db");
  const sessions = await runCli(["sessions", "--all", "--json", "--db", db], { cwd: dir });
  const registry = (JSON.parse(sessions.stdout) as { session: string; kind: string }[]).find(
    (s) => s.kind === "registry",
  )!.session;
  const replay = await runCli(["replay", registry, "--db", db], { cwd: dir });
  const stale = replay.stdout.match(/stale fetch of (\S+) ignored/g) ?? [];
  expect(stale.filter((s) => !s.includes("of everything "))).toEqual([]);
}, 180_000);
