import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, test } from "vitest";
import { sampleLog, toJsonl } from "../../testing/sampleLog.js";
import { CLI, cleanEnv, REPO, runCli, runNode, SERVERS, tempDir } from "../../testing/spawnCli.js";
import { EXIT } from "../program/exitCodes.js";
import type { DoctorFinding } from "./doctorFinding.js";

// Issue 25: `toolledger doctor` checks what users get wrong, through the built command, with
// real MCP servers, a real SQLite file, and host configs in a temporary home.

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill();
});

const SECRET = "doctor-s3cr3t-9f8e7d";
const TOKEN = "doctor-bearer-4c5d6e";

interface Report {
  toolledger: string;
  summary: Record<"ok" | "warn" | "fail" | "skip", number>;
  findings: DoctorFinding[];
}

const find = (report: Report, check: string, subject: string) =>
  report.findings.filter((f) => f.check === check && f.subject.includes(subject));

/** The leaky test server's HTTP mode: every request is answered 401, the token echoed. */
async function startLeakyHttp(): Promise<string> {
  const child = spawn(process.execPath, [join(SERVERS, "leaky.js"), "--http", "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /listening (\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`leaky --http exited with ${code}`)));
  });
}

function writeJson(file: string, value: unknown): void {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2));
}

describe("toolledger doctor", () => {
  test("a working setup: every check ok, each server's tools and time, the gateway's command; exit 0", async () => {
    const dir = tempDir();
    const env = cleanEnv(dir);
    const home = env.HOME!;
    const log = join(dir, "sample.jsonl");
    writeFileSync(log, toJsonl(sampleLog().entries));
    // The default database, with one session in it.
    expect((await runCli(["import", log, "--session", "s1"], { cwd: dir, env })).code).toBe(0);
    const notes = { command: process.execPath, args: [join(SERVERS, "notes.js")] };
    const calculator = { command: process.execPath, args: [join(SERVERS, "calculator.js")] };
    writeJson(join(home, ".config", "Claude", "claude_desktop_config.json"), {
      mcpServers: {
        notes,
        environment: {
          command: process.execPath,
          args: [join(SERVERS, "environment.js")],
          env: { API_TOKEN: SECRET },
        },
      },
    });
    const cursor = join(home, ".cursor", "mcp.json");
    writeJson(cursor, { mcpServers: { calculator } });
    const launcher = join(REPO, "packages", "cli", "bin", "toolledger");
    const installed = await runCli(["install", "cursor", "--command", launcher, "--yes"], {
      cwd: dir,
      env,
    });
    expect(installed.code, installed.stderr).toBe(0);

    const r = await runCli(["doctor", "--json"], { cwd: dir, env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.summary.fail).toBe(0);
    expect(find(report, "node", "Node")[0]).toMatchObject({ status: "ok" });
    expect(find(report, "sqlite", "better-sqlite3")[0]).toMatchObject({ status: "ok" });
    expect(find(report, "database", "sessions.db (XDG_DATA_HOME)")[0]).toMatchObject({
      status: "ok",
      message: expect.stringMatching(
        /^opens; 1 session\(s\), 28 event\(s\), [\d.]+ KiB, unchanged since toolledger last closed it cleanly$/,
      ),
    });
    expect(find(report, "host", "claude-desktop")[0]).toMatchObject({
      status: "ok",
      message: "gateway not installed; 2 server(s) of its own",
      fix: "`toolledger install claude-desktop` records them through the gateway",
    });
    expect(find(report, "host", `cursor ${cursor}`).map((f) => [f.status, f.message])).toEqual([
      ["ok", `gateway installed; runs ${launcher} serve`],
      ["ok", expect.stringContaining("servers behind the gateway in ")],
    ]);
    const servers = report.findings.filter((f) => f.check === "server");
    expect(servers.map((f) => [f.subject, f.status])).toEqual([
      ["claude-desktop/notes", "ok"],
      ["claude-desktop/environment", "ok"],
      ["cursor via toolledger/calculator", "ok"],
    ]);
    // V1: each server's era, found as serve finds it (notes is a legacy server).
    expect(servers[0]!.message).toMatch(
      /^started and listed 5 tool\(s\) in \d+ ms; speaks MCP 2025-11-25 \(legacy era, no server\/discover; initialize answered\)$/,
    );
    for (const s of servers) expect(s.ms).toBeGreaterThan(0);
    expect(find(report, "oauth", "OAuth")[0]).toMatchObject({ status: "skip" });
    expect(r.stdout + r.stderr).not.toContain(SECRET);

    // The same as lines: one per finding, and the summary.
    const human = await runCli(["doctor", "--no-servers"], { cwd: dir, env });
    expect(human.code).toBe(EXIT.ok);
    const lines = human.stdout.trim().split("\n");
    expect(lines[0]).toMatch(
      /^ok {4}node {6}Node \d+\.\d+\.\d+: toolledger supports \^20\.19\.0 \|\| \^22\.12\.0 \|\| \^24\.0\.0 \|\| \^26\.0\.0$/,
    );
    expect(lines).toContain("skip  server    servers: not started (--no-servers)");
    expect(human.stderr).toMatch(
      /^0 failed, 0 warning\(s\), \d+ ok, \d+ not checked \(toolledger /,
    );
  }, 180_000);

  test("what users get wrong: a moved checkout, a missing command, a server that does not start, one that wants authorization, a damaged database; no secret; exit 7", async () => {
    const dir = tempDir();
    const url = await startLeakyHttp();
    const env = cleanEnv(dir);
    const home = env.HOME!;
    // Installed before issue 25: node and a path into a checkout that has since moved.
    const gone = join(dir, "old-checkout", "packages", "cli", "dist", "main.js");
    writeJson(join(home, ".config", "Claude", "claude_desktop_config.json"), {
      mcpServers: { toolledger: { command: process.execPath, args: [gone, "serve"] } },
    });
    writeJson(join(home, ".cursor", "mcp.json"), {
      mcpServers: {
        toolledger: { command: join(dir, "nowhere", "toolledger"), args: ["serve"] },
      },
    });
    const vscode = join(home, ".config", "Code", "User", "mcp.json");
    writeJson(vscode, {
      servers: {
        leaky: {
          type: "stdio",
          command: process.execPath,
          args: [join(SERVERS, "leaky.js"), "--when", "start"],
          env: { LEAKY_SECRET: SECRET },
        },
        remote: { type: "http", url, headers: { Authorization: `Bearer ${TOKEN}` } },
      },
    });
    // A database that is not one.
    const db = join(dir, "damaged.db");
    writeFileSync(db, Buffer.alloc(8192, 7));

    const r = await runCli(["doctor", "--db", db, "--json", "--timeout", "30000"], {
      cwd: dir,
      env,
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(EXIT.unhealthy);
    const report = JSON.parse(r.stdout) as Report;
    expect(find(report, "database", db)[0]).toMatchObject({
      status: "fail",
      fix: expect.stringContaining("--db"),
    });
    expect(find(report, "host", "claude-desktop")[0]).toMatchObject({
      status: "fail",
      message: `gateway installed, but it runs ${gone}, which no longer exists`,
      fix: "`toolledger uninstall claude-desktop`, then install again: it writes a command that survives upgrades",
    });
    expect(find(report, "host", "cursor")[0]).toMatchObject({
      status: "fail",
      message: expect.stringContaining("is not found"),
    });
    const [leaky] = find(report, "server", "vscode/leaky");
    expect(leaky).toMatchObject({ status: "fail", fix: expect.stringContaining("mcp.json:") });
    expect(leaky!.message).toContain("did not start");
    const [remote] = find(report, "server", "vscode/remote");
    expect(remote).toMatchObject({
      status: "fail",
      fix: expect.stringContaining("remote wants authorization"),
    });
    const all = r.stdout + r.stderr;
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain(Buffer.from(SECRET).toString("base64").slice(0, 16));

    // A database a newer toolledger wrote: said so, with what to do.
    const newer = join(dir, "newer.db");
    const log = join(dir, "sample.jsonl");
    writeFileSync(log, toJsonl(sampleLog().entries));
    expect((await runCli(["import", log, "--db", newer], { cwd: dir, env })).code).toBe(0);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(99);
    const fd = openSync(newer, "r+");
    writeSync(fd, header, 0, 4, 60);
    closeSync(fd);
    const human = await runCli(["doctor", "--db", newer, "--no-servers"], { cwd: dir, env });
    expect(human.code).toBe(EXIT.unhealthy);
    expect(human.stdout).toMatch(
      /^FAIL {2}database {2}\S+newer\.db \(--db\): .*schema version 99, newer than 4.* → a newer toolledger wrote it: upgrade this one/m,
    );
  }, 180_000);
});

describe("TOOLLEDGER_DEBUG=1 (issue 34, point 4)", () => {
  test("a finding that is a bug in toolledger prints its stack on stderr, as its hint promises; without it, none", async () => {
    const dir = tempDir();
    const env = cleanEnv(dir);
    const db = join(dir, "fault.db");
    const log = join(dir, "sample.jsonl");
    writeFileSync(log, toJsonl(sampleLog().entries));
    expect((await runCli(["import", log, "--db", db], { cwd: dir, env })).code).toBe(0);
    // A fault no code path expects (a bug stands in for it): opening this file throws a plain
    // Error, with no code, inside the database check.
    const fault = join(dir, "fault.mjs");
    writeFileSync(
      fault,
      `import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const open = fs.openSync;
fs.openSync = (path, ...rest) => {
  if (String(path).endsWith("fault.db")) throw new Error("simulated fault");
  return open(path, ...rest);
};
syncBuiltinESMExports();
`,
    );
    const doctor = (extra: Record<string, string>) =>
      runNode(["--import", pathToFileURL(fault).href, CLI, "doctor", "--db", db, "--no-servers"], {
        cwd: dir,
        env: { ...env, ...extra },
      });
    const quiet = await doctor({});
    expect(quiet.code).toBe(EXIT.unhealthy);
    expect(quiet.stdout).toMatch(
      /^FAIL {2}database .*unexpected error: simulated fault → this is a bug in toolledger; rerun with TOOLLEDGER_DEBUG=1 for the stack/m,
    );
    expect(quiet.stderr).not.toContain("    at ");
    const debug = await doctor({ TOOLLEDGER_DEBUG: "1" });
    expect(debug.code).toBe(EXIT.unhealthy);
    expect(debug.stderr).toMatch(/^Error: simulated fault\n {4}at /m);
    expect(debug.stderr).toContain("checkStoreFile");
  }, 60_000);
});
