import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { cleanEnv, runCli, tempDir } from "../../testing/spawnCli.js";

// C1: sessions written by the first release (one stream holding registry and conversation)
// still open, replay, audit and export unchanged.

const here = fileURLToPath(new URL("../../testing/release-0.1/", import.meta.url));
const fixture = (name: string) => readFileSync(join(here, name), "utf8");
const SESSION = "20261130-170053-d0a128";

describe("a session written by the first release", () => {
  const dir = tempDir();
  const db = join(dir, "old.db");
  copyFileSync(join(here, "release-0.1.db"), db);
  const run = (args: string[]) => runCli([...args, "--db", db], { cwd: dir, env: cleanEnv(dir) });

  test("is listed as a first-release session", async () => {
    const r = await run(["sessions", "--json"]);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual([
      expect.objectContaining({ session: SESSION, kind: "legacy", events: 13, enabled: 1 }),
    ]);
  });

  test("replays step by step exactly as the first release did", async () => {
    // The first release's `replay --json` wrote JSON Lines; that form is `--jsonl` now.
    const r = await run(["replay", SESSION, "--jsonl"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(fixture("replay.jsonl"));
  });

  test("replay --to gives the same state", async () => {
    const r = await run(["replay", SESSION, "--to", "12", "--json"]);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(fixture("replay-to-12.json")));
  });

  test("audits the same enable history", async () => {
    const r = await run(["audit", "--session", SESSION, "--json"]);
    const now = JSON.parse(r.stdout) as { requests: unknown };
    const then = JSON.parse(fixture("audit.json")) as { requests: unknown };
    expect(now.requests).toEqual(then.requests);
  });

  test("exports the same lines, which import and replay the same", async () => {
    const r = await run(["export", SESSION]);
    expect(r.stdout).toBe(fixture("session.jsonl"));
    const other = join(dir, "copy.db");
    const file = join(dir, "old.jsonl");
    writeFileSync(file, r.stdout);
    const i = await runCli(["import", file, "--db", other], { cwd: dir, env: cleanEnv(dir) });
    expect(i.code).toBe(0);
    const again = await runCli(["replay", SESSION, "--db", other, "--jsonl"], {
      cwd: dir,
      env: cleanEnv(dir),
    });
    // The store records when it stored an event; what each step did is the same.
    const steps = (text: string) =>
      text
        .trim()
        .split("\n")
        .map((l) => {
          const { recordedAt: _, ...step } = JSON.parse(l) as Record<string, unknown>;
          return step;
        });
    expect(steps(again.stdout)).toEqual(steps(fixture("replay.jsonl")));
  });
});
