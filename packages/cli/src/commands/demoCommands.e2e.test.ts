import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { CLI, cleanEnv, REPO, runCli, tempDir } from "../../testing/spawnCli.js";

// After the quick start, every command the demo prints must run exactly as printed.
function runPrinted(line: string, cwd: string, env: Record<string, string>) {
  return spawnSync("sh", ["-c", line], { cwd, env, encoding: "utf8", timeout: 60_000 });
}

/** The cells of one column of a table as formatTable prints it (header, then rows). */
function column(table: string[], name: string): string[] {
  const header = table[0] ?? "";
  const start = header.indexOf(name);
  const next = header.slice(start + name.length).search(/\S/);
  const end = next === -1 ? undefined : start + name.length + next;
  return table.slice(1).map((row) => row.slice(start, end).trim());
}

describe("the commands the demo prints", () => {
  test("its audit table and `audit` say STILL ENABLED the same way", async () => {
    const dir = tempDir();
    const env = cleanEnv(dir);
    const demo = await runCli(["demo"], { cwd: dir, env, timeoutMs: 60_000 });
    expect(demo.code, demo.stderr).toBe(0);
    const lines = demo.stdout.split("\n");
    const at = lines.findIndex((l) => l.startsWith("CALL "));
    const demoTable = lines.slice(at, lines.indexOf("", at));
    const session = / replay (\S+) --db/.exec(demo.stdout)?.[1] ?? "";
    const db = join(dir, "data", "toolledger", "sessions.db");
    const audit = await runCli(["audit", "--session", session, "--db", db], { cwd: dir, env });
    expect(audit.code, audit.stderr).toBe(0);
    const auditTable = audit.stdout.trimEnd().split("\n");
    const cells = column(demoTable, "STILL ENABLED");
    expect(cells).toEqual(column(auditTable, "STILL ENABLED"));
    expect(cells).toContain("yes");
    expect(cells.some((c) => /^no: cleared at \d+$/.test(c))).toBe(true);
  }, 120_000);

  test("run as printed when `toolledger` is not on the PATH (they name node and the CLI's path)", async () => {
    const dir = tempDir();
    const env = cleanEnv(dir);
    const demo = await runCli(["demo", "--json"], { cwd: dir, env, timeoutMs: 60_000 });
    expect(demo.code, demo.stderr).toBe(0);
    const next = (JSON.parse(demo.stdout) as { next: string[] }).next;
    expect(next.length).toBeGreaterThan(3);
    for (const line of next) {
      expect(line.startsWith(`node ${CLI} `), line).toBe(true);
      const r = runPrinted(line, dir, env);
      expect(r.status, `${line}\n${r.stderr}`).toBe(0);
    }
  }, 120_000);

  test("say `toolledger …` once the README's one-liner, run as printed on a fresh HOME, put it on the PATH", async () => {
    const dir = tempDir();
    const home = join(dir, "home");
    mkdirSync(home);
    const bin = join(home, ".local", "bin");
    const env = cleanEnv(dir, { PATH: `${bin}:${process.env.PATH ?? ""}` });
    // Each README's line that links the launcher, run from the repository root as written.
    for (const readme of ["README.md", join("packages", "cli", "README.md")]) {
      const lines = readFileSync(join(REPO, readme), "utf8")
        .split("\n")
        .filter((l) => l.includes("ln -s") && l.includes("~/.local/bin"));
      expect(lines, readme).toHaveLength(1);
      for (const line of lines) {
        const r = runPrinted(line, REPO, env);
        expect(r.status, `${readme}: ${line}\n${r.stderr}`).toBe(0);
        // Run twice (a second clone, a re-run of the quick start): still fine.
        expect(runPrinted(line, REPO, env).status, line).toBe(0);
      }
    }
    expect(realpathSync(join(bin, "toolledger"))).toBe(
      realpathSync(join(REPO, "packages", "cli", "bin", "toolledger")),
    );
    const demo = await runCli(["demo"], { cwd: dir, env, timeoutMs: 60_000 });
    expect(demo.code, demo.stderr).toBe(0);
    const printed = demo.stdout
      .split("\n")
      .filter((l) => l.startsWith("  toolledger "))
      .map((l) => l.trim());
    expect(printed.length).toBeGreaterThan(3);
    expect(demo.stdout).not.toContain("alias toolledger");
    for (const line of printed) {
      const r = runPrinted(line, dir, env);
      expect(r.status, `${line}\n${r.stderr}`).toBe(0);
    }
  }, 120_000);
});
