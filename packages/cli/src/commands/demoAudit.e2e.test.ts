import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { cleanEnv, runCli, tempDir } from "../../testing/spawnCli.js";

// L2: the quick start's demo, audited by its own `audit --calls`: no call that ran is judged
// deferred and not enabled (D9). Before write-ahead, a call answered before the demo's clear
// was stored after it, and the audit flagged it in every run.

interface AuditedCall {
  name: string;
  outcome: string | null;
  registry: string | null;
  started: { position: number };
}

async function demoAudit(): Promise<AuditedCall[]> {
  const dir = tempDir();
  const env = cleanEnv(dir);
  const db = join(dir, "demo.db");
  const demo = await runCli(["demo", "--db", db], { cwd: dir, env, timeoutMs: 60_000 });
  expect(demo.code, demo.stderr).toBe(0);
  const audit = await runCli(["audit", "--calls", "--json", "--db", db], { cwd: dir, env });
  expect(audit.code, audit.stderr).toBe(0);
  return (JSON.parse(audit.stdout) as { calls: AuditedCall[] }).calls;
}

describe("the demo's own audit (L2, D9)", () => {
  test("20 runs: every call that ran is judged as it was decided; the refused ones are the ones marked", async () => {
    const runs: AuditedCall[][] = [];
    // Two at a time: a busy machine is where a call decided before the clear used to land after it.
    for (let i = 0; i < 20; i += 2) runs.push(...(await Promise.all([demoAudit(), demoAudit()])));
    for (const calls of runs) {
      // The demo makes calls that run and calls that are refused: both are there to judge.
      expect(calls.some((c) => c.outcome === "ok")).toBe(true);
      expect(calls.some((c) => c.outcome === "refused")).toBe(true);
      const flagged = calls.filter(
        (c) => c.registry === "deferred" && (c.outcome === "ok" || c.outcome === "tool_error"),
      );
      expect(flagged).toEqual([]);
      for (const c of calls.filter((c) => c.outcome === "refused"))
        expect(c.registry, c.name).toBe("deferred");
    }
  }, 300_000);
});
