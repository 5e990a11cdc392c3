import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { mcpClientScript } from "../../testing/mcpClientScript.js";
import { sampleLog, toJsonl } from "../../testing/sampleLog.js";
import { CLI, cleanEnv, runCli, runNode, SERVERS, tempDir } from "../../testing/spawnCli.js";
import { describeEachStore } from "../../testing/testDatabases.js";
import { shellQuote } from "../output/shellQuote.js";

// Every test spawns the built CLI (`pnpm build` first) as a user would.

const COMMANDS = [
  "demo",
  "serve",
  "tools",
  "sessions",
  "replay",
  "audit",
  "explain",
  "export",
  "import",
];

function exampleConfig(dir: string, extra: Record<string, unknown> = {}): string {
  const file = join(dir, "mcp.json");
  const servers = {
    notes: {
      command: process.execPath,
      args: [join(SERVERS, "notes.js")],
      env: { NOTES_TOKEN: "s3cr3t-value" },
    },
    calculator: { command: process.execPath, args: [join(SERVERS, "calculator.js")] },
    ...extra,
  };
  writeFileSync(file, JSON.stringify({ mcpServers: servers }, null, 2));
  return file;
}

describe("help, version, exit codes", () => {
  test("--help on every command shows usage and a runnable example, exit 0", async () => {
    const dir = tempDir();
    for (const name of COMMANDS) {
      const r = await runCli([name, "--help"], { cwd: dir });
      expect(r.code, name).toBe(0);
      expect(r.stdout).toContain(`Usage: toolledger ${name}`);
      expect(r.stdout).toMatch(new RegExp(`Examples:\\n {2}\\$ toolledger ${name}`));
    }
    const top = await runCli(["--help"], { cwd: dir });
    expect(top.code).toBe(0);
    for (const name of COMMANDS) expect(top.stdout).toContain(`  ${name} `);
    expect(top.stdout).toMatch(/Exit codes:[\s\S]*2 {2}unknown command or flag/);
  });

  test("--version prints the package version", async () => {
    const r = await runCli(["--version"], { cwd: tempDir() });
    const pkg = JSON.parse(readFileSync(join(CLI, "..", "..", "package.json"), "utf8")) as {
      version: string;
    };
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  test("an unknown command is a usage error (2) on stderr, stdout stays empty", async () => {
    const r = await runCli(["replya"], { cwd: tempDir() });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain('unknown command "replya"; did you mean replay?');
  });
});

describeEachStore(
  "demo, then replay, audit, explain, export and import on the database it left",
  (database) => {
    let dir: string;
    let env: Record<string, string>;
    let demo: Awaited<ReturnType<typeof runCli>>;
    let session: string;
    let db: string;

    beforeAll(async () => {
      dir = tempDir();
      // SQLite: the default location; PostgreSQL: TOOLLEDGER_DB names the server.
      db =
        database.kind === "sqlite"
          ? join(dir, "data", "toolledger", "sessions.db")
          : database.fresh(dir, "sessions");
      env = cleanEnv(dir, database.kind === "sqlite" ? {} : { TOOLLEDGER_DB: db });
      demo = await runCli(["demo"], { cwd: dir, env, timeoutMs: 60_000 });
      session = / replay (\S+) --db/.exec(demo.stdout)?.[1] ?? "";
    }, 90_000);

    test("demo finishes, uses the default database location and prints the next commands", async () => {
      expect(demo.stderr).toBe("");
      expect(demo.code).toBe(0);
      expect(await database.exists(db)).toBe(true);
      expect(session).toMatch(/^conv-\d{8}-\d{6}-[0-9a-f]{8}$/);
      for (const line of [" replay", " audit --session", " explain"])
        expect(demo.stdout).toContain(line);
      expect(demo.stdout).toContain(`--db ${shellQuote(database.shown(db))}`);
      // The script's own steps, through the gateway to real servers.
      expect(demo.stdout).toContain("saved note 1: groceries");
      expect(demo.stdout).toContain("(2 + 3) * 4.5 = 22.5");
      expect(demo.stdout).toContain('"calculator__evaluate": unknown tool');
      expect(demo.stdout).not.toContain("\u001b[");
    });

    test("replay <session> shows every step of the session", async () => {
      const r = await runCli(["replay", session, "--db", db], { cwd: dir, env });
      expect(r.code).toBe(0);
      for (const type of [
        "DeferralConfigured",
        "ExtensionAdded",
        "ToolsFetched",
        "EnableToolsRequested",
        "EnableToolsResponded",
        "Compacted",
        "Cleared",
      ]) {
        expect(r.stdout).toContain(type);
      }
      expect(r.stdout).toContain("+ enabled notes__add_note, notes__search_notes");
      expect(r.stdout).toContain("- no longer enabled: notes__add_note, notes__search_notes");
    });

    test("audit --json: a successful enable ended by /clear, a failed one, one still enabled", async () => {
      const r = await runCli(["audit", "--session", session, "--db", db, "--json"], {
        cwd: dir,
        env,
      });
      expect(r.code).toBe(0);
      const audit = JSON.parse(r.stdout) as {
        requests: { outcome: string; stillEnabled: string[]; ended: { by: string } | null }[];
      };
      expect(audit.requests.map((q) => q.outcome)).toEqual(["enabled", "failed", "enabled"]);
      expect(audit.requests[0]!.ended?.by).toBe("Cleared");
      expect(audit.requests[2]!.stillEnabled).toEqual(["calculator__calculate"]);
    });

    test("explain: deferred after the clear, and enabled by the last request", async () => {
      const a = await runCli(["explain", "notes__add_note", "--session", session, "--db", db], {
        cwd: dir,
        env,
      });
      expect(a.code).toBe(0);
      expect(a.stdout).toContain("notes__add_note is deferred");
      expect(a.stdout).toMatch(
        /D8 +it was enabled earlier, until the conversation was cleared \[event \d+\]/,
      );
      const b = await runCli(["explain", "calculator__calculate", "--db", db, "--json"], {
        cwd: dir,
        env,
      });
      expect(b.code).toBe(0);
      expect(JSON.parse(b.stdout)).toMatchObject({
        status: "enabled",
        extension: "calculator",
        rawName: "calculate",
      });
    });

    test("export, then import into a new database and replay the file: the same steps", async () => {
      const file = join(dir, "session.jsonl");
      const e = await runCli(["export", session, "--db", db, "-o", file], { cwd: dir, env });
      expect(e.code).toBe(0);
      const other = database.fresh(dir, "other");
      const i = await runCli(["import", file, "--db", other], { cwd: dir, env });
      expect(i.code).toBe(0);
      expect(i.stdout.trim()).toBe(session);
      const fromDb = await runCli(["replay", session, "--db", other, "--jsonl"], { cwd: dir, env });
      const fromFile = await runCli(["replay", file, "--jsonl"], { cwd: dir, env });
      const changes = (text: string) =>
        text
          .trim()
          .split("\n")
          .map((l) => (JSON.parse(l) as { changes: unknown }).changes);
      expect(changes(fromDb.stdout)).toEqual(changes(fromFile.stdout));
      expect(changes(fromFile.stdout).length).toBeGreaterThan(10);
    });

    test("view writes the session's page beside the database file, or here for a server", async () => {
      const r = await runCli(["view", session, "--db", db], { cwd: dir, env });
      expect(r.code, r.stderr).toBe(0);
      const file = r.stdout.trim();
      expect(dirname(file)).toBe(database.kind === "sqlite" ? dirname(db) : dir);
      expect(readFileSync(file, "utf8")).toContain("<html");
    });

    test("sessions lists it", async () => {
      const r = await runCli(["sessions"], { cwd: dir, env });
      expect(r.code).toBe(0);
      // C5: the demo client, the host it ran on, its calls and its enabled tools.
      expect(r.stdout).toMatch(
        new RegExp(
          `^${session} +toolledger-demo \\S+ +\\S+ +\\d{4}-\\S+ \\S+ +\\d{4}-\\S+ \\S+ +8 +1 +\\d+$`,
          "m",
        ),
      );
    });
  },
);

describeEachStore("serve, driven by a real MCP client", (database) => {
  test("over stdio: list, a refused deferred call, enables, calls through to two servers; the session lands in the database", async () => {
    const dir = tempDir();
    const config = exampleConfig(dir);
    const db = database.fresh(dir, "gateway");
    const script = join(dir, "client.mjs");
    writeFileSync(script, mcpClientScript());
    const target = {
      type: "stdio",
      command: process.execPath,
      args: [CLI, "serve", "--config", config, "--db", db, "--deferral", "lookup"],
      env: { HOME: join(dir, "home") },
    };
    const r = await runNode([script, JSON.stringify(target)], { cwd: dir, timeoutMs: 60_000 });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.before).toEqual(["enable_tools"]);
    expect(out.refused.isError).toBe(true);
    expect(JSON.stringify(out.refused.content)).toContain("call enable_tools");
    expect(out.enabled.isError).toBeUndefined();
    expect(out.failedEnable.isError).toBe(true);
    expect(JSON.stringify(out.failedEnable.content)).toContain("did you mean notes__add_note");
    expect(out.after).toEqual(["enable_tools", "notes__add_note"]);
    expect(JSON.stringify(out.call.content)).toContain("saved note 1: groceries");
    expect(JSON.stringify(out.calc.content)).toContain("6 * 7 = 42");
    expect(out.listChanged).toBeGreaterThanOrEqual(1);
    // Messages go to stderr, never into the MCP stream; the secret env value is never printed.
    // Servers start in the background: the summary says how many were ready when it answered.
    expect(out.stderr).toMatch(/serving \d+ tool\(s\) from \d of 2 server\(s\).*, deferral lookup/);
    expect(out.stderr).toContain("notes is ready (5 tool(s))");
    expect(out.stderr).toContain("calculator is ready (4 tool(s))");
    expect(out.stderr).not.toContain("s3cr3t-value");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sessions = await runCli(["sessions", "--db", db, "--json"], { cwd: dir });
    const [s, ...more] = JSON.parse(sessions.stdout) as {
      session: string;
      kind: string;
      events: number;
      client: string;
      calls: number;
      status: string;
    }[];
    expect(more).toEqual([]);
    // C2/C5: the stdio client is one conversation, with its clientInfo; C4: its calls are counted.
    expect(s).toMatchObject({ kind: "conversation", status: "closed" });
    expect(s!.client).toBe("toolledger 0.1.0");
    expect(s!.calls).toBeGreaterThanOrEqual(5);
    expect(s!.events).toBeGreaterThanOrEqual(10);
    const audit = await runCli(["audit", "--db", db, "--json"], { cwd: dir });
    expect(
      (JSON.parse(audit.stdout) as { requests: { outcome: string }[] }).requests.map(
        (q) => q.outcome,
      ),
    ).toEqual(["enabled", "failed", "enabled"]);
    const exported = await runCli(["export", s!.session, "--db", db], { cwd: dir });
    expect(exported.stdout).not.toContain("s3cr3t-value");
  }, 90_000);

  test("over HTTP on loopback: prints the URL, serves a client, stops on SIGTERM with 130", async () => {
    const dir = tempDir();
    const config = exampleConfig(dir);
    const db = database.fresh(dir, "http");
    const child = spawn(
      process.execPath,
      [CLI, "serve", "--config", config, "--db", db, "--http", "0", "--deferral", "lookup"],
      {
        cwd: dir,
        env: cleanEnv(dir),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString("utf8");
        if (out.includes("\n")) resolve(out.trim());
      });
      child.on("close", (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const script = join(dir, "client.mjs");
    writeFileSync(script, mcpClientScript());
    const r = await runNode([script, JSON.stringify({ type: "streamable_http", url })], {
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).after).toEqual(["enable_tools", "notes__add_note"]);
    const exit = new Promise<number | null>((resolve) => child.on("close", resolve));
    child.kill("SIGTERM");
    expect(await exit).toBe(130);
    expect(stderr).toContain("toolledger: stopping (interrupted); replay with `toolledger replay");
  }, 90_000);
});

describe("tools", () => {
  test("aggregates real servers; --deferral lookup shows eager and deferred; --json", async () => {
    const dir = tempDir();
    const config = exampleConfig(dir);
    const r = await runCli(
      [
        "tools",
        "--config",
        config,
        "--deferral",
        "lookup",
        "--always-load",
        "notes__list_notes",
        "--json",
      ],
      { cwd: dir },
    );
    expect(r.code).toBe(0);
    const tools = (JSON.parse(r.stdout) as { tools: { name: string; class: string }[] }).tools;
    expect(tools.find((t) => t.name === "notes__list_notes")?.class).toBe("eager");
    expect(tools.find((t) => t.name === "calculator__calculate")?.class).toBe("deferred");
    expect(tools.map((t) => t.name)).toEqual([...tools.map((t) => t.name)].sort());
    const one = await runCli(["tools", "--config", config, "--extension", "calculator"], {
      cwd: dir,
    });
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(
      /^TOOL +EXTENSION +DESCRIPTION\ncalculator__calculate +calculator +Evaluate/,
    );
    expect(one.stdout).not.toContain("notes__");
  }, 60_000);

  test("explain --config explains the live registry of the configured servers", async () => {
    const dir = tempDir();
    const config = exampleConfig(dir);
    const r = await runCli(
      ["explain", "notes.add_note", "--config", config, "--deferral", "lookup", "--json"],
      { cwd: dir },
    );
    expect(r.code).toBe(0);
    const e = JSON.parse(r.stdout) as {
      publicName: string;
      status: string;
      reasons: { rule: string; text: string }[];
    };
    expect(e).toMatchObject({ publicName: "notes__add_note", status: "deferred" });
    // V1: and the era its server speaks (the notes server is a legacy one).
    expect(e.reasons.map((x) => x.rule)).toEqual(["R13", "R1/R3", "D4", "V1"]);
    expect(e.reasons.at(-1)?.text).toBe(
      "its server notes speaks MCP 2025-11-25 (legacy era: no server/discover; initialize answered)",
    );
  }, 60_000);

  test("a server that fails to start names its command and stderr tail, exit 6, the others still listed", async () => {
    const dir = tempDir();
    const config = exampleConfig(dir, {
      broken: {
        command: process.execPath,
        args: ["-e", "process.stderr.write('boom: BROKEN_API_KEY is not set\\n'); process.exit(3)"],
        env: { BROKEN_API_KEY: "hidden-value" },
      },
    });
    const r = await runCli(["tools", "--config", config], { cwd: dir });
    expect(r.code).toBe(6);
    expect(r.stdout).toContain("notes__add_note");
    expect(r.stderr).toContain('extension "broken"');
    expect(r.stderr).toContain("boom: BROKEN_API_KEY is not set");
    expect(r.stderr).not.toContain("hidden-value");
  }, 60_000);

  test("an invalid config is bad input (3) naming file, line and field", async () => {
    const dir = tempDir();
    const file = join(dir, "config.yaml");
    writeFileSync(file, "extensions:\n  notes:\n    type: stdio\n    args: [x]\n");
    const r = await runCli(["tools", "--config", file], { cwd: dir });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      new RegExp(`${file}:3:\\d+: extensions\\.notes\\.cmd: a stdio extension needs "cmd"`),
    );
  });

  test("issue 34: a key spelled as another format spells it, alone, says which one was meant (as the README promises)", async () => {
    const dir = tempDir();
    const json = join(dir, "mcp.json");
    writeFileSync(
      json,
      JSON.stringify({
        mcpServers: {
          notes: { cmd: "node", args: ["notes.js"] },
          remote: { type: "http", uri: "https://mcp.example.com/mcp" },
        },
      }),
    );
    const r = await runCli(["tools", "--config", json], { cwd: dir });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      new RegExp(
        `${json}:1:\\d+: mcpServers\\.notes: needs "command" \\(a stdio server\\) or "url" \\(an HTTP server\\); it has "cmd": did you mean "command"\\?`,
      ),
    );
    expect(r.stderr).toContain(
      'mcpServers.remote.url: an HTTP server needs "url" (http:// or https://); it has "uri": did you mean "url"?',
    );
    const yaml = join(dir, "config.yaml");
    writeFileSync(yaml, "extensions:\n  notes:\n    type: stdio\n    command: node\n");
    const g = await runCli(["tools", "--config", yaml], { cwd: dir });
    expect(g.code).toBe(3);
    expect(g.stderr).toContain(
      'extensions.notes.cmd: a stdio extension needs "cmd" (the command to start); it has "command": did you mean "cmd"?',
    );
  });

  test("an invalid GOOSE_TOOL_DEFERRAL names the allowed values (D1)", async () => {
    const dir = tempDir();
    const r = await runCli(["tools", "--config", exampleConfig(dir)], {
      cwd: dir,
      env: cleanEnv(dir, { GOOSE_TOOL_DEFERRAL: "everything" }),
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('use "lookup"');
  });
});

describe("bad input", () => {
  const dir = tempDir();
  const good = toJsonl(sampleLog().entries).split("\n");
  const write = (name: string, lines: string[]) => {
    const file = join(dir, name);
    writeFileSync(file, lines.join("\n"));
    return file;
  };

  test("a damaged JSONL line names the line number", async () => {
    const file = write("damaged.jsonl", [good[0]!, good[1]!, good[2]!.slice(0, 20)]);
    const r = await runCli(["replay", file], { cwd: dir });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`${file}:3: not valid JSON`);
  });

  test("a failing field names the line and the field", async () => {
    const file = write("field.jsonl", [good[0]!, good[1]!.replace('"kind":"stdio"', '"kind":""')]);
    const r = await runCli(["import", file, "--db", join(dir, "x.db")], { cwd: dir });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`${file}:2: INVALID_FIELD: field kind`);
    expect(existsSync(join(dir, "x.db"))).toBe(false);
  });

  test("an unknown event type and a newer schema version say so", async () => {
    const unknown = write("unknown.jsonl", [
      good[0]!,
      JSON.stringify({ type: "ToolsTeleported", v: 1 }),
    ]);
    const a = await runCli(["replay", unknown], { cwd: dir });
    expect(a.code).toBe(3);
    expect(a.stderr).toContain('unknown event type "ToolsTeleported"');
    const newer = write("newer.jsonl", [good[0]!.replace('"v":1', '"v":9')]);
    const b = await runCli(["replay", newer], { cwd: dir });
    expect(b.code).toBe(3);
    expect(b.stderr).toContain("UNSUPPORTED_VERSION");
    expect(b.stderr).toContain("upgrade");
  });

  test("a missing database is not-found (4) and nothing is created", async () => {
    const db = join(dir, "nowhere", "sessions.db");
    const r = await runCli(["replay", "some-session", "--db", db], { cwd: dir });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`no session database at ${db}`);
    expect(existsSync(join(dir, "nowhere"))).toBe(false);
    const byDefault = await runCli(["sessions"], { cwd: dir, env: cleanEnv(dir) });
    expect(byDefault.code).toBe(4);
    expect(existsSync(join(dir, "data"))).toBe(false);
  });

  test("a missing session is not-found and names the known ones", async () => {
    const db = join(dir, "one.db");
    const file = write("ok.jsonl", good);
    expect(
      (await runCli(["import", file, "--db", db, "--session", "known-one"], { cwd: dir })).code,
    ).toBe(0);
    const r = await runCli(["audit", "--session", "missing", "--db", db], { cwd: dir });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("known sessions include known-one");
  });
});
