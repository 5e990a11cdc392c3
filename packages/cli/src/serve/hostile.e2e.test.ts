import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findLeaks } from "@toolledger/core/testing";
import { afterEach, describe, expect, test } from "vitest";
import { RawMcpProcess } from "../../testing/rawMcpProcess.js";
import {
  type ClientOutput,
  type ClientStep,
  scriptedClientScript,
  withStderrTo,
} from "../../testing/scriptedClientScript.js";
import { CLI, cleanEnv, runCli, runNode, SERVERS, tempDir } from "../../testing/spawnCli.js";

// Hostile servers and inputs (issue 10), each through the built CLI as a user runs it.

const TOKEN = "sk-live-4f9Qx7Lm2Zt8Rw1Vb6Nc3Hd5";
const KEY = 'pk_"quote"/slash\\back+plus=eq-0123456789';
const CRASH_KEY = "ck-crashy-7d1e9a2b4c6f8e0a";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

const MIB = 1024 * 1024;

/** `toolledger serve` (stdio) over the `big` test server, spoken to in raw JSON-RPC lines. */
async function rawServe(dir: string, extra: string[] = [], bigArgs: string[] = []) {
  const config = join(dir, "big.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        big: { command: process.execPath, args: [join(SERVERS, "big.js"), ...bigArgs] },
      },
    }),
  );
  const serve = new RawMcpProcess(
    process.execPath,
    [CLI, "serve", "--config", config, "--db", join(dir, "big.db"), ...extra],
    { cwd: dir, env: cleanEnv(dir) },
  );
  children.push(serve.child);
  await serve.initialize();
  return serve;
}

/** A tools/call line with `bytes` characters of argument; `idFirst` puts the id before the method. */
function bigCall(id: number, name: string, bytes: number, idFirst = false): string {
  const params = JSON.stringify({ name, arguments: { value: "a".repeat(bytes) } });
  return idFirst
    ? `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params}}`
    : `{"method":"tools/call","params":${params},"jsonrpc":"2.0","id":${id}}`;
}

const resultText = (m: { result?: unknown }) =>
  ((m.result as { content?: { text?: string }[] } | undefined)?.content ?? [])
    .map((c) => c.text ?? "")
    .join("");

/** Starts the leaky test server's HTTP mode: every request gets 401 and the token echoed. */
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

/** Runs `serve` (stdio) under the scripted client; its raw stderr goes to a file. */
async function serveWithClient(
  dir: string,
  serveArgs: string[],
  steps: ClientStep[],
): Promise<{ out: ClientOutput; stderr: string; code: number | null; clientStderr: string }> {
  const script = join(dir, "client.mjs");
  writeFileSync(script, scriptedClientScript());
  const stderrFile = join(dir, "serve.stderr");
  writeFileSync(stderrFile, "");
  const target = withStderrTo(stderrFile, process.execPath, [CLI, "serve", ...serveArgs], {
    HOME: join(dir, "home"),
  });
  const r = await runNode([script, JSON.stringify({ target, steps })], {
    cwd: dir,
    timeoutMs: 120_000,
  });
  if (r.code !== 0) throw new Error(`client exited ${r.code}: ${r.stderr}`);
  // serve writes its last lines after the client closed its stdin.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return {
    out: JSON.parse(r.stdout) as ClientOutput,
    stderr: readFileSync(stderrFile, "utf8"),
    code: r.code,
    clientStderr: r.stderr,
  };
}

const text = (step: ClientOutput["steps"][number] | undefined) =>
  step?.error ?? (step?.result?.content ?? []).map((c) => c.text ?? "").join("\n");

describe("no secret reaches the log, a log line or an error (issue 10, R6)", () => {
  test("a 401 body echoing the bearer token and stderr printing env secrets across the tail's cut: absent from the database, its WAL, export, replay, tools and stderr", async () => {
    const dir = tempDir();
    const url = await startLeakyHttp();
    const config = join(dir, "mcp.json");
    const leaky = join(SERVERS, "leaky.js");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          remote: { url, headers: { Authorization: `Bearer ${TOKEN}` } },
          leaky: {
            command: process.execPath,
            args: [leaky, "--when", "start"],
            env: { LEAKY_SECRET: KEY },
          },
          crashy: { command: process.execPath, args: [leaky], env: { LEAKY_SECRET: CRASH_KEY } },
          notes: { command: process.execPath, args: [join(SERVERS, "notes.js")] },
        },
      }),
    );
    const db = join(dir, "leak.db");
    const { out, stderr } = await serveWithClient(
      dir,
      ["--config", config, "--db", db, "--record-payloads"],
      [
        // serve answers before every server is up; they join as they come.
        { listUntil: "notes__add_note" },
        { call: "crashy__echo", args: { value: "hello" } },
        { call: "crashy__fail" },
        { call: "crashy__leak" },
        { sleepMs: 300 },
        { call: "crashy__echo", args: { value: "again" } },
        { copy: `${db}-wal`, to: join(dir, "wal.copy") },
      ],
    );
    expect(out.tools).toContain("notes__add_note");
    expect(text(out.steps[0])).toBe("hello");
    // The server's own JSON-RPC error reaches the client (G2), without the secret it echoed.
    expect(text(out.steps[1])).toContain("the upstream rejected key [redacted]");
    // The failures are reported, with their causes, and redacted.
    expect(stderr).toContain('extension "remote"');
    expect(stderr).toContain("HTTP 401");
    expect(stderr).toContain("invalid_token");
    expect(stderr).toContain('extension "leaky"');
    expect(stderr).toContain("[redacted]");
    expect(existsSync(join(dir, "wal.copy"))).toBe(true);

    const sessions = JSON.parse(
      (await runCli(["sessions", "--db", db, "--json"], { cwd: dir })).stdout,
    ) as { session: string }[];
    expect(sessions.length).toBeGreaterThan(0);
    const readers: string[] = [];
    for (const { session } of sessions) {
      for (const args of [
        ["export", session, "--db", db],
        ["replay", session, "--db", db],
        ["replay", session, "--db", db, "--json"],
      ]) {
        const r = await runCli(args, { cwd: dir });
        expect(r.code, args.join(" ")).toBe(0);
        readers.push(r.stdout, r.stderr);
      }
    }
    const tools = await runCli(["tools", "--config", config, "--json"], {
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect(tools.stderr).toContain('extension "remote"');
    const places: [string, string | Buffer][] = [
      ["serve stderr", stderr],
      ["client view", JSON.stringify(out)],
      ["readers", readers.join("\n")],
      ["tools", tools.stdout + tools.stderr],
      ["database", readFileSync(db)],
      ["WAL", readFileSync(join(dir, "wal.copy"))],
    ];
    for (const [where, haystack] of places) {
      for (const secret of [TOKEN, KEY, CRASH_KEY]) {
        expect(findLeaks(haystack, secret, { fragment: 8 }), `${where}: ${secret}`).toEqual([]);
      }
    }
  }, 180_000);
});

describe("an over-limit message never makes the gateway stop answering (issue 10)", () => {
  test("an 11 MiB tools/call on the gateway's stdin, and a 12 MB one, are served; the next request too", async () => {
    const serve = await rawServe(tempDir());
    serve.send(bigCall(1, "big__measure", 11 * MIB));
    expect(resultText(await serve.response(1))).toBe(`received ${11 * MIB} characters`);
    serve.send(bigCall(2, "big__measure", 12_000_000, true));
    expect(resultText(await serve.response(2))).toBe("received 12000000 characters");
    serve.send({ jsonrpc: "2.0", id: 3, method: "tools/list" });
    expect(JSON.stringify(await serve.response(3))).toContain("big__measure");
    serve.closeInput();
    expect((await serve.exited).code).toBe(0);
  }, 120_000);

  test("over --max-message-mb: answered with an error naming the limit (id first or last), the gateway keeps serving", async () => {
    const serve = await rawServe(tempDir(), ["--max-message-mb", "10"]);
    serve.send(bigCall(1, "big__measure", 11 * MIB));
    const refused = await serve.response(1);
    expect(refused.error).toMatchObject({ code: -32600 });
    expect(JSON.stringify(refused.error)).toMatch(/11\.0 MiB.*10 MiB/);
    serve.send(bigCall(2, "big__measure", 11 * MIB, true));
    expect((await serve.response(2)).error).toMatchObject({ code: -32600 });
    serve.send(bigCall(3, "big__measure", 1000));
    expect(resultText(await serve.response(3))).toBe("received 1000 characters");
    serve.closeInput();
    expect((await serve.exited).code).toBe(0);
    expect(serve.stderr).toMatch(/dropped a request \(tools\/call\) of 11\.0 MiB/);
  }, 120_000);

  test("an upstream's 11 MiB reply is passed on; over the limit, the call fails with the real cause and the upstream stays connected", async () => {
    const open = await rawServe(tempDir());
    open.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "big__blob", arguments: { mb: 11 } },
    });
    expect(resultText(await open.response(1))).toHaveLength(11 * MIB);
    open.closeInput();
    await open.exited;

    const limited = await rawServe(tempDir(), ["--max-message-mb", "10"]);
    limited.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "big__blob", arguments: { mb: 11 } },
    });
    const failed = await limited.response(1);
    const text = resultText(failed);
    expect((failed.result as { isError?: boolean }).isError).toBe(true);
    expect(text).toContain('extension "big"');
    expect(text).toMatch(/reply of 11\.0 MiB to tools\/call.*10 MiB/);
    expect(text).not.toContain("closed the connection");
    limited.send(bigCall(2, "big__measure", 10));
    expect(resultText(await limited.response(2))).toBe("received 10 characters");
    limited.closeInput();
    expect((await limited.exited).code).toBe(0);
  }, 120_000);

  test("an upstream whose tools/list reply is over the limit is reported with that cause, not as a closed connection", async () => {
    const serve = await rawServe(tempDir(), ["--max-message-mb", "10"], ["--list-mb", "11"]);
    // Servers start in the background: the failure is said once the first listing failed.
    await serve.stderrMatching(/reply of 11\.0 MiB to tools\/list.*10 MiB/);
    serve.closeInput();
    await serve.exited;
    expect(serve.stderr).not.toContain("closed the connection during tools/list");
  }, 120_000);
});

describe("calls to a crashed server's tools say it is down, why and what to do (issue 10)", () => {
  test("through the gateway with the SDK's client: crash, then calls by public and mangled name", async () => {
    const dir = tempDir();
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          // It stays down through serve's restarts, so the calls below find it down.
          crashy: {
            command: process.execPath,
            args: [join(SERVERS, "faulty.js"), "--stay-down", join(dir, "crashed")],
          },
          crushy: { command: process.execPath, args: [join(SERVERS, "notes.js")] },
        },
      }),
    );
    const db = join(dir, "crash.db");
    const { out, stderr } = await serveWithClient(
      dir,
      ["--config", config, "--db", db],
      [
        { call: "crashy__ok" },
        { call: "crashy__crash" },
        { sleepMs: 500 },
        { call: "crashy__ok" },
        { call: "crashy.ok" },
        { call: "crushy__list_notes" },
      ],
    );
    expect(text(out.steps[0])).toBe("ok");
    const [, , after, mangled, other] = out.steps;
    for (const step of [after, mangled]) {
      const said = text(step);
      expect(step?.result?.isError, said).toBe(true);
      expect(said).toContain('extension "crashy" is unavailable');
      // Why: the exit code and the stderr tail (of the crash, or of a failed restart).
      expect(said).toMatch(/exited with code [35]/);
      expect(said).toMatch(/faulty: (crashing on request|refusing to start)/);
      // What is being done: serve restarts it with backoff.
      expect(said).toMatch(/restarting it|no restart left|not being restarted/);
      // Not "no such tool", and no close names from another extension.
      expect(said).not.toContain("no tool named");
      expect(said).not.toContain("crushy");
    }
    expect(other?.result?.isError).toBeUndefined();
    expect(stderr).not.toContain("no tool named");
    const [conversation] = (
      JSON.parse((await runCli(["sessions", "--db", db, "--json"], { cwd: dir })).stdout) as {
        session: string;
        kind: string;
      }[]
    ).filter((s) => s.kind === "conversation");
    const exported = await runCli(["export", conversation!.session, "--db", db], { cwd: dir });
    const finished = exported.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { event: { type: string; outcome?: string; reason?: string } })
      .filter((e) => e.event.type === "ToolCallFinished")
      .map((e) => [e.event.outcome, e.event.reason]);
    // C4: the log says the same: unavailable, not unknown.
    expect(finished).toContainEqual(["unavailable", "EXTENSION_UNAVAILABLE"]);
    expect(finished).not.toContainEqual(["refused", "UNKNOWN_TOOL"]);
  }, 120_000);
});

describe("no writing command appends to a damaged database (issue 10)", () => {
  test("pages overwritten mid-file: serve, import, demo and clear refuse with exit 3, a way out, and write nothing", async () => {
    const dir = tempDir();
    const db = join(dir, "damaged.db");
    const log = join(dir, "log.jsonl");
    const events = Array.from({ length: 3000 }, (_, i) => ({
      type: "ToolsFetched",
      v: 1,
      extension: "notes",
      startedAtVersion: 0,
      tools: [{ name: `tool_${i}`, description: `tool number ${i} `.repeat(20) }],
    }));
    writeFileSync(
      log,
      [
        JSON.stringify({
          type: "ExtensionAdded",
          v: 1,
          name: "notes",
          kind: "stdio",
          configFingerprint: "x",
        }),
        ...events.map((e) => JSON.stringify(e)),
      ].join("\n"),
    );
    expect((await runCli(["import", log, "--session", "big", "--db", db], { cwd: dir })).code).toBe(
      0,
    );
    // A stray write over two pages in the middle of the file.
    const { closeSync, openSync, statSync, writeSync } = await import("node:fs");
    const pages = statSync(db).size / 4096;
    const fd = openSync(db, "r+");
    writeSync(fd, Buffer.alloc(8192, 0x5a), 0, 8192, Math.floor(pages / 2) * 4096);
    closeSync(fd);
    const before = readFileSync(db);

    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { notes: { command: process.execPath, args: [join(SERVERS, "notes.js")] } },
      }),
    );
    const attempts = [
      ["serve", "--config", config, "--db", db],
      ["import", log, "--session", "again", "--db", db],
      ["demo", "--db", db],
      ["clear", "conv-20261130-000000-00000000", "--db", db],
    ];
    for (const args of attempts) {
      const r = await runCli(args, { cwd: dir, timeoutMs: 60_000 });
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toContain(`${db} is damaged`);
      expect(r.stderr).toContain("nothing was written to it");
      expect(r.stderr).toMatch(/hint: keep working on a new file with --db/);
      expect(readFileSync(db).equals(before), args[0]).toBe(true);
    }
  }, 180_000);
});

describe("toolledger scrub, as a user runs it (issue 10)", () => {
  test("the value piped on stdin is gone from every event, the file and its WAL; the record names no value", async () => {
    const dir = tempDir();
    const db = join(dir, "old.db");
    const log = join(dir, "old.jsonl");
    // What an older release wrote: the token in a failure, URL-encoded, and in a tool list.
    writeFileSync(
      log,
      [
        {
          type: "ExtensionAdded",
          v: 1,
          name: "remote",
          kind: "streamable_http",
          configFingerprint: "x",
        },
        {
          type: "ToolsFetchFailed",
          v: 1,
          extension: "remote",
          startedAtVersion: 1,
          error: `Error POSTing to endpoint: {"echo":"Bearer ${TOKEN}","q":"${encodeURIComponent(TOKEN)}"}`,
        },
      ]
        .map((e) => JSON.stringify(e))
        .join("\n"),
    );
    expect((await runCli(["import", log, "--session", "old", "--db", db], { cwd: dir })).code).toBe(
      0,
    );
    expect(findLeaks(readFileSync(db), TOKEN)).not.toEqual([]);

    const child = spawn(process.execPath, [CLI, "scrub", "--db", db], {
      cwd: dir,
      env: cleanEnv(dir),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.stdin.end(`${TOKEN}\n`);
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("1 event(s) in 1 stream(s) held the value (old)");
    expect(stderr).toContain("integrity_check ok");
    const walFile = `${db}-wal`;
    expect(findLeaks(readFileSync(db), TOKEN, { fragment: 8 })).toEqual([]);
    if (existsSync(walFile)) expect(findLeaks(readFileSync(walFile), TOKEN)).toEqual([]);
    const list = await runCli(["scrub", "--list", "--db", db, "--json"], { cwd: dir });
    expect(JSON.parse(list.stdout)).toHaveLength(1);
    expect(findLeaks(list.stdout + stdout + stderr, TOKEN)).toEqual([]);
    const replay = await runCli(["replay", "old", "--db", db], { cwd: dir });
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain("[redacted]");
  }, 120_000);
});
