import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { GooseDatabase } from "../../testing/goose/gooseDatabase.js";
import {
  assistantCalls,
  call,
  toolRequest,
  toolResponse,
  userResponses,
  userText,
} from "../../testing/goose/gooseMessages.js";
import { SCENARIO_EXTENSIONS, writeScenarioDatabase } from "../../testing/goose/gooseScenario.js";
import { cleanEnv, REPO, runCli, tempDir } from "../../testing/spawnCli.js";

const hash = (file: string) =>
  existsSync(file) ? createHash("sha256").update(readFileSync(file)).digest("hex") : "none";

describe("toolledger import goose (built CLI, issue 26)", () => {
  it("finds goose's database where goose keeps it, never writes to it, and the session replays, audits, explains and views", async () => {
    const dir = tempDir();
    // cleanEnv sets XDG_DATA_HOME=<dir>/data: goose keeps sessions.db at $XDG_DATA_HOME/goose/sessions/.
    mkdirSync(join(dir, "data", "goose", "sessions"), { recursive: true });
    const gooseDb = join(dir, "data", "goose", "sessions", "sessions.db");
    const { main, sub } = writeScenarioDatabase(gooseDb, 16);
    const before = hash(gooseDb);
    const ledger = join(dir, "ledger.db");
    const env = cleanEnv(dir);
    const none = await runCli(["import", "goose", "--db", ledger], { cwd: dir, env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(main);

    const first = await runCli(["import", "goose", "--session", main, "--db", ledger, "--json"], {
      cwd: dir,
      env,
    });
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout) as {
      sessions: { conversation: string; added: number; calls: number }[];
    };
    // The sub-agent comes with its parent.
    expect(report.sessions.map((s) => s.conversation)).toEqual([`goose-${main}`, `goose-${sub}`]);
    expect(report.sessions[0]!.calls).toBe(11);
    // Not a byte of goose's database changed; a reader of a WAL database may leave an empty -wal.
    expect(hash(gooseDb)).toBe(before);
    expect(existsSync(`${gooseDb}-wal`) ? readFileSync(`${gooseDb}-wal`).length : 0).toBe(0);

    const again = await runCli(["import", "goose", "--all", "--db", ledger], { cwd: dir, env });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/nothing new/);

    const sessions = await runCli(["sessions", "--db", ledger, "--json"], { cwd: dir, env });
    const rows = JSON.parse(sessions.stdout) as {
      session: string;
      source?: string;
      parent?: string | null;
      calls: number;
    }[];
    const row = rows.find((r) => r.session === `goose-${main}`)!;
    expect(row).toMatchObject({ calls: 11, source: `goose sqlite ${main}` });
    expect(rows.find((r) => r.session === `goose-${sub}`)).toMatchObject({
      parent: `goose-${main}`,
    });

    const replay = await runCli(["replay", `goose-${main}`, "--db", ledger], { cwd: dir, env });
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain("github__list_repos");

    const audit = await runCli(["audit", "--session", `goose-${main}`, "--db", ledger, "--json"], {
      cwd: dir,
      env,
    });
    expect(audit.code).toBe(0);
    expect(audit.stdout).toContain("github__list_repos");

    const calls = await runCli(
      ["audit", "--calls", "--session", `goose-${main}`, "--db", ledger, "--json"],
      { cwd: dir, env },
    );
    expect(calls.code).toBe(0);
    const callRows = JSON.parse(calls.stdout) as { records?: unknown[] } | unknown[];
    expect(JSON.stringify(callRows)).toContain("DECLINED_BY_USER");
    expect(JSON.stringify(callRows)).toContain("MALFORMED_CALL");

    const explain = await runCli(
      ["explain", "github__create_issue", "--session", `goose-${main}`, "--db", ledger],
      { cwd: dir, env },
    );
    expect(explain.code).toBe(0);
    expect(explain.stdout).toMatch(/^github__create_issue is deferred/);
    expect(explain.stdout).toMatch(
      /D9 +1 of these calls came while it was deferred and not enabled/,
    );

    const out = join(dir, "view.html");
    const view = await runCli(["view", `goose-${main}`, "--db", ledger, "--out", out], {
      cwd: dir,
      env,
    });
    expect(view.code).toBe(0);
    const html = readFileSync(out, "utf8");
    // The page's data holds the imported events with their origin (the timeline's words are
    // tested in view/importedTimeline.int.test.ts).
    expect(html).toContain('"type":"SessionImported"');
    expect(html).toContain('"origin":{"kind":"synthetic"');
    expect(view.stderr).toMatch(/tokens of tool definitions, \d+ with deferral off/);
  }, 120_000);

  it("imports a database another process is writing (WAL), repeatedly, without an error or a lock on either side", async () => {
    const dir = tempDir();
    const gooseDb = join(dir, "sessions.db");
    const g = new GooseDatabase(gooseDb, 16);
    const session = g.createSession({ name: "busy" });
    g.setExtensions(session, SCENARIO_EXTENSIONS);
    g.addMessages(
      session,
      userText(1_799_999_999, "go"),
      ...call(1_799_999_999, "c0", "developer__shell", {}, toolResponse("c0", "ok")),
    );
    g.close();
    // The writer runs as its own process: bundled with esbuild where node resolves better-sqlite3.
    const writer = join(
      REPO,
      "packages",
      "cli",
      "node_modules",
      ".toolledger-test",
      `writer-${process.pid}.mjs`,
    );
    await build({
      entryPoints: [join(REPO, "packages", "cli", "testing", "goose", "gooseWriterProcess.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      external: ["better-sqlite3"],
      outfile: writer,
      logLevel: "silent",
    });
    const child = spawn(process.execPath, [writer, gooseDb, session, "6000"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    for (let i = 0; i < 100 && !out.includes("ready"); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(out).toContain("ready");
    const ledger = join(dir, "ledger.db");
    const env = cleanEnv(dir);
    const added: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await runCli(
        ["import", "goose", "--goose-db", gooseDb, "--all", "--db", ledger, "--json"],
        { cwd: dir, env },
      );
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      added.push((JSON.parse(r.stdout) as { added: number }).added);
    }
    expect(await exited).toBe(0);
    expect(err).toBe("");
    const [, turns, errors] = out.trim().split("\n").at(-1)!.split(" ");
    expect(Number(errors)).toBe(0);
    expect(Number(turns)).toBeGreaterThan(10);
    // The session kept growing while it was imported: later imports added what was new.
    expect(added.filter((n) => n > 0).length).toBeGreaterThan(1);
    // Once the writer stopped, one more import takes the rest; then the ledger has every call.
    await runCli(["import", "goose", "--goose-db", gooseDb, "--all", "--db", ledger], {
      cwd: dir,
      env,
    });
    const audit = await runCli(
      ["audit", "--calls", "--session", `goose-${session}`, "--db", ledger, "--json"],
      { cwd: dir, env },
    );
    expect(audit.stdout.match(/"callId"/g)?.length ?? 0).toBeGreaterThanOrEqual(Number(turns) + 1);
  }, 120_000);

  it("R3: a platform extension goose serves unprefixed (developer's `shell`) is registered unprefixed, so its calls resolve to it in replay and audit (issue 34, point 7)", async () => {
    const dir = tempDir();
    const gooseDb = join(dir, "sessions.db");
    const g = new GooseDatabase(gooseDb, 16);
    const session = g.createSession({ name: "today's goose" });
    // goose of today: developer is a platform extension with unprefixed_tools
    // (agents/platform_extensions/mod.rs); its calls carry the owner in _meta.
    g.setExtensions(session, [
      { type: "platform", name: "developer", description: "", bundled: true, available_tools: [] },
      SCENARIO_EXTENSIONS[1],
      { type: "platform", name: "todo", description: "", bundled: true, available_tools: [] },
    ]);
    const developer = { goose_extension: "developer" };
    const t0 = 1_795_000_000;
    g.addMessages(
      session,
      userText(t0, "run the tests"),
      assistantCalls(t0 + 1, null, toolRequest("t1", "shell", { command: "npm test" }, developer)),
      userResponses(t0 + 2, toolResponse("t1", "2 failing")),
      assistantCalls(t0 + 3, null, toolRequest("t2", "write", { path: "a.ts" }, developer)),
      userResponses(t0 + 4, toolResponse("t2", "written")),
      // A prefixed platform extension and a stdio one keep their prefixes.
      ...call(t0 + 5, "t3", "todo__todo_write", { items: [] }, toolResponse("t3", "ok")),
      ...call(t0 + 7, "t4", "github__list_repos", {}, toolResponse("t4", "[]")),
    );
    g.close();
    const ledger = join(dir, "ledger.db");
    const env = cleanEnv(dir);
    const imported = await runCli(
      ["import", "goose", "--goose-db", gooseDb, "--session", session, "--db", ledger],
      { cwd: dir, env },
    );
    expect(imported.code, imported.stderr).toBe(0);

    const replay = await runCli(["replay", `goose-${session}`, "--db", ledger], { cwd: dir, env });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).not.toContain("did not resolve");
    expect(replay.stdout).toMatch(/call shell on developer/);
    expect(replay.stdout).toMatch(/call write on developer/);
    expect(replay.stdout).toMatch(/call todo__todo_write on todo/);

    const calls = await runCli(
      ["audit", "--calls", "--session", `goose-${session}`, "--db", ledger, "--json"],
      { cwd: dir, env },
    );
    expect(calls.code, calls.stderr).toBe(0);
    type Row = { name: string; publicName: string | null; registry: string | null };
    const rows = (JSON.parse(calls.stdout) as { calls: Row[] }).calls;
    expect(rows.map((r) => [r.name, r.publicName, r.registry])).toEqual([
      ["shell", "shell", null],
      ["write", "write", null],
      ["todo__todo_write", "todo__todo_write", null],
      ["github__list_repos", "github__list_repos", null],
    ]);
    const human = await runCli(
      ["audit", "--calls", "--session", `goose-${session}`, "--db", ledger],
      { cwd: dir, env },
    );
    expect(human.stdout).not.toContain("unknown to the registry");

    const explain = await runCli(
      ["explain", "shell", "--session", `goose-${session}`, "--db", ledger],
      {
        cwd: dir,
        env,
      },
    );
    expect(explain.code, explain.stderr).toBe(0);
    expect(explain.stdout).toMatch(/^shell is /);
    expect(explain.stdout).toContain("developer");
  }, 120_000);

  it("R3: a session of an older goose, whose builtin developer served `developer__shell`, stays prefixed", async () => {
    const dir = tempDir();
    const gooseDb = join(dir, "sessions.db");
    const { main } = writeScenarioDatabase(gooseDb, 16);
    const ledger = join(dir, "ledger.db");
    const env = cleanEnv(dir);
    expect(
      (
        await runCli(
          ["import", "goose", "--goose-db", gooseDb, "--session", main, "--db", ledger],
          { cwd: dir, env },
        )
      ).code,
    ).toBe(0);
    const calls = await runCli(
      ["audit", "--calls", "--session", `goose-${main}`, "--db", ledger, "--json"],
      { cwd: dir, env },
    );
    type Row = { name: string; publicName: string | null };
    const rows = (JSON.parse(calls.stdout) as { calls: Row[] }).calls;
    const shells = rows.filter((r) => r.name === "developer__shell");
    expect(shells.length).toBeGreaterThan(0);
    for (const r of shells) expect(r.publicName).toBe("developer__shell");
  }, 120_000);
});
