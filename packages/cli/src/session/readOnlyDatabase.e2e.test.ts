import { spawnSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { cleanEnv, REPO, runCli, SERVERS, tempDir } from "../../testing/spawnCli.js";

// Issue 20, point 9: a database a user can only read (an archive, a shared folder, another
// user's data) works with every reading command; a writing command says plainly that it
// cannot write there and what to do; a damaged file's hint names only commands that work.

/** A demo session in `<dir>/archive/sessions.db`, then the folder and its files made read-only. */
async function readOnlyArchive() {
  const dir = tempDir();
  // mkdtemp makes a private folder; the unprivileged user must reach into it.
  chmodSync(dir, 0o755);
  const archive = join(dir, "archive");
  const db = join(archive, "sessions.db");
  const demo = await runCli(["demo", "--db", db], { cwd: dir, timeoutMs: 90_000 });
  expect(demo.code, demo.stderr).toBe(0);
  const sessions = await runCli(["sessions", "--json", "--db", db], { cwd: dir });
  const [conversation] = JSON.parse(sessions.stdout) as { session: string }[];
  for (const name of readdirSync(archive)) chmodSync(join(archive, name), 0o444);
  chmodSync(archive, 0o555);
  // The unprivileged user's own working folder, where `view` may write.
  const work = join(dir, "work");
  mkdirSync(work);
  chmodSync(work, 0o777);
  const snapshot = () =>
    readdirSync(archive)
      .sort()
      .map((name) => [name, readFileSync(join(archive, name)).toString("base64")]);
  return { dir, archive, db, work, session: conversation!.session, snapshot };
}

describe("a database in a read-only folder", () => {
  test("sessions, replay, audit, explain, export and view read it in place and leave it as it was", async () => {
    const { db, work, session, snapshot } = await readOnlyArchive();
    const before = snapshot();
    const as = { cwd: work, env: cleanEnv(work), unprivileged: true };
    const sessions = await runCli(["sessions", "--db", db], as);
    expect(sessions.stderr).toBe("");
    expect(sessions.code).toBe(0);
    expect(sessions.stdout).toContain(session);
    const reads: [string, string[]][] = [
      ["replay", ["replay", session, "--db", db]],
      ["audit", ["audit", "--session", session, "--db", db]],
      ["explain", ["explain", "notes__add_note", "--session", session, "--db", db]],
      ["export", ["export", session, "--db", db]],
    ];
    for (const [name, args] of reads) {
      const r = await runCli(args, as);
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      expect(r.stdout.length, name).toBeGreaterThan(0);
    }
    const exported = await runCli(["export", session, "--db", db], as);
    expect(exported.stdout.trim().split("\n").length).toBeGreaterThan(20);
    // view writes beside the database unless that folder is read-only: then here, and says so.
    const view = await runCli(["view", session, "--db", db], as);
    expect(view.code, view.stderr).toBe(0);
    expect(view.stdout.trim()).toBe(join(work, `${session}.html`));
    expect(view.stderr).toContain("is read-only");
    expect(statSync(join(work, `${session}.html`)).size).toBeGreaterThan(10_000);
    expect(snapshot()).toEqual(before);
  }, 180_000);

  test("serve and clear say they cannot write there and what to do, not 'unexpected error'; nothing changes", async () => {
    const { dir, db, work, session, snapshot } = await readOnlyArchive();
    const before = snapshot();
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { notes: { command: process.execPath, args: [join(SERVERS, "notes.js")] } },
      }),
    );
    chmodSync(config, 0o644);
    const as = { cwd: work, env: cleanEnv(work), unprivileged: true, timeoutMs: 60_000 };
    for (const args of [
      ["serve", "--config", config, "--db", db],
      ["clear", session, "--db", db],
      ["compact", session, "--db", db],
    ]) {
      const r = await runCli(args, as);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toContain(`${db}: cannot write to the event store: the file is read-only`);
      expect(r.stderr).toContain("hint: this command records to the database: pass --db");
      expect(r.stderr).not.toMatch(/unexpected error|a bug in toolledger/);
      // Issue 34, point 9: the command-line way to read it, not the library's option.
      expect(r.stderr).not.toContain("readOnly");
    }
    expect(snapshot()).toEqual(before);
  }, 180_000);
});

describe("doctor on a sound database this user cannot write (issue 34, points 4 and 14)", () => {
  test("reads it in place, says it is read-only for this user and what still works, exit 0; writes nothing", async () => {
    const { db, work, snapshot } = await readOnlyArchive();
    const before = snapshot();
    const as = { cwd: work, env: cleanEnv(work), unprivileged: true };
    const json = await runCli(["doctor", "--db", db, "--no-servers", "--json"], as);
    expect(json.stderr).toBe("");
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as {
      findings: { check: string; status: string; message: string; fix?: string }[];
    };
    const database = report.findings.find((f) => f.check === "database");
    expect(database).toMatchObject({ status: "warn" });
    // Read like the reading commands read it: its streams, every page.
    expect(database?.message).toMatch(/^opens; 2 session\(s\), \d+ event\(s\), /);
    expect(database?.message).toMatch(/every page read in \d+ ms|unchanged since/);
    expect(database?.message).toMatch(/; read-only for you( \(\w+\))?: the file is read-only/);
    expect(database?.fix).toContain(
      "sessions, replay, audit, explain, export and view read it where it is; to record (serve, demo, import, clear, compact) pass --db <a file in a writable folder>",
    );
    const human = await runCli(["doctor", "--db", db, "--no-servers"], as);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^warn +database +.*read-only for you.* → sessions, replay/m);
    expect(human.stdout + human.stderr).not.toMatch(/unexpected error|a bug in toolledger/);
    expect(snapshot()).toEqual(before);
  }, 180_000);
});

describe("the hint for a damaged database names only commands that work on it", () => {
  test("each command the hint gives, run as printed, succeeds: sessions marks the damaged session, export | import copies a sound one", async () => {
    const dir = tempDir();
    const db = join(dir, "damaged.db");
    const log = join(dir, "log.jsonl");
    writeFileSync(
      log,
      [
        { type: "ExtensionAdded", v: 1, name: "notes", kind: "stdio", configFingerprint: "x" },
        ...Array.from({ length: 3000 }, (_, i) => ({
          type: "ToolsFetched",
          v: 1,
          extension: "notes",
          startedAtVersion: 0,
          tools: [{ name: `tool_${i}`, description: `tool number ${i} `.repeat(20) }],
        })),
      ]
        .map((e) => JSON.stringify(e))
        .join("\n"),
    );
    for (const session of ["big", "small"]) {
      const r = await runCli(["import", log, "--session", session, "--db", db], { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
    }
    // A stray write over two pages a quarter into the file, among the first session's rows.
    const pages = statSync(db).size / 4096;
    const fd = openSync(db, "r+");
    writeSync(fd, Buffer.alloc(8192, 0x5a), 0, 8192, Math.floor(pages / 4) * 4096);
    closeSync(fd);

    const config = join(dir, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: {} }));
    const refused = await runCli(["serve", "--config", config, "--db", db], { cwd: dir });
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toContain(`${db} is damaged`);
    const hint = /^hint: (.*)$/m.exec(refused.stderr)?.[1] ?? "";
    const commands = [...hint.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    expect(commands.length, hint).toBeGreaterThanOrEqual(2);
    expect(hint).not.toContain(".recover");

    // Run them as printed, with the documented `toolledger` on the PATH.
    const bin = join(dir, "bin");
    mkdirSync(bin);
    symlinkSync(join(REPO, "packages", "cli", "bin", "toolledger"), join(bin, "toolledger"));
    const env = cleanEnv(dir, { PATH: `${bin}:${process.env.PATH ?? ""}` });
    const fresh = join(dir, "fresh.db");
    const outputs: string[] = [];
    for (const line of commands) {
      const runnable = line.replaceAll("<session>", "small").replaceAll("<new file>", fresh);
      const r = spawnSync("sh", ["-c", runnable], { cwd: dir, env, encoding: "utf8" });
      expect(r.status, `${runnable}\n${r.stderr}`).toBe(0);
      outputs.push(r.stdout + r.stderr);
    }
    const listing = outputs.join("\n");
    expect(listing).toMatch(/big\s+\(damaged\)/);
    expect(listing).toContain("warning: session big is damaged");
    const copied = await runCli(["sessions", "--json", "--db", fresh], { cwd: dir, env });
    expect(
      (JSON.parse(copied.stdout) as { session: string; events: number }[]).map((s) => [
        s.session,
        s.events,
      ]),
    ).toEqual([["small", 3001]]);
  }, 180_000);
});
