import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ExtensionConnection, fetchTools } from "@toolledger/adapters-mcp";
import { afterAll, beforeAll, expect, test } from "vitest";
import { cleanEnv, runCli, SERVERS, tempDir } from "../../testing/spawnCli.js";
import { eventually, type ServeProcess, startServeHttp } from "../../testing/startServe.js";
import { describeEachStore } from "../../testing/testDatabases.js";

// C1–C3 through the real gateway process: two clients over streamable HTTP are two
// conversations, and `toolledger clear` from another process reaches one of them.

interface Client {
  connection: ExtensionConnection;
  changes: number;
  names: () => Promise<string[]>;
}

async function connect(url: string, name: string): Promise<Client> {
  const client: Client = {
    connection: undefined as unknown as ExtensionConnection,
    changes: 0,
    names: async () =>
      (await fetchTools(client.connection, { requestTimeoutMs: 10_000, maxPages: 5 })).tools
        .map((t) => t.name)
        .sort(),
  };
  client.connection = await ExtensionConnection.connect(
    { type: "streamable_http", name, url },
    {
      clientInfo: { name, version: "1.2.3" },
      connectTimeoutMs: 20_000,
      onListChanged: () => {
        client.changes++;
      },
    },
  );
  return client;
}

const text = (r: { content?: unknown }) => JSON.stringify(r.content ?? "");

describeEachStore("conversations through `toolledger serve --http` (C1–C3)", (database) => {
  let dir: string;
  let db: string;
  let serve: ServeProcess;
  let a: Client;
  let b: Client;
  const conversations = async () => {
    const r = await runCli(["sessions", "--db", db, "--json"], { cwd: dir, env: cleanEnv(dir) });
    expect(r.stderr).toBe("");
    return JSON.parse(r.stdout) as {
      session: string;
      kind: string;
      client: string;
      status: string;
      calls: number;
      enabled: number;
      host: string;
      registry: string;
    }[];
  };

  beforeAll(async () => {
    dir = tempDir();
    db = database.fresh(dir, "sessions");
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          notes: { command: process.execPath, args: [join(SERVERS, "notes.js")] },
          calculator: { command: process.execPath, args: [join(SERVERS, "calculator.js")] },
        },
      }),
    );
    serve = await startServeHttp(["--config", config, "--db", db, "--deferral", "lookup"], dir);
    // serve answers before its servers are up; these clients count list changes, so they
    // connect once the registry is complete.
    await eventually(
      () => /notes is ready/.test(serve.stderr()) && /calculator is ready/.test(serve.stderr()),
      "both servers ready",
      30_000,
    );
    a = await connect(serve.url, "client-a");
    b = await connect(serve.url, "client-b");
  }, 60_000);

  afterAll(async () => {
    await a?.connection.close();
    await b?.connection.close();
    if (serve) await serve.stop();
  });

  test("C2: each client is its own conversation, recorded with its clientInfo, over one registry stream", async () => {
    expect(await a.names()).toEqual(["enable_tools"]);
    expect(await b.names()).toEqual(["enable_tools"]);
    const open = await conversations();
    expect(open.map((c) => c.client).sort()).toEqual(["client-a 1.2.3", "client-b 1.2.3"]);
    expect(open.every((c) => c.kind === "conversation" && c.status === "open")).toBe(true);
    // C1: the registry is stored once, in one host stream both conversations observe.
    expect(new Set(open.map((c) => c.registry)).size).toBe(1);
    const all = await runCli(["sessions", "--all", "--db", db, "--json"], { cwd: dir });
    const kinds = (JSON.parse(all.stdout) as { kind: string }[]).map((s) => s.kind).sort();
    // P4: serve pins by default, so the database also holds its pins ledger.
    expect(kinds).toEqual(["conversation", "conversation", "pins", "registry"]);
  });

  test("C2: an enable in one conversation changes only its list, and only its client is told", async () => {
    const enabled = await a.connection.callTool(
      "enable_tools",
      { names: ["notes__add_note"] },
      { timeoutMs: 10_000 },
    );
    expect(enabled.isError).toBeUndefined();
    await eventually(() => a.changes >= 1, "client-a's tools/list_changed");
    expect(await a.names()).toEqual(["enable_tools", "notes__add_note"]);
    expect(await b.names()).toEqual(["enable_tools"]);
    expect(b.changes).toBe(0);
    const refused = await b.connection.callTool(
      "notes__add_note",
      { title: "x", body: "y" },
      { timeoutMs: 10_000 },
    );
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("call enable_tools");
    const saved = await a.connection.callTool(
      "notes__add_note",
      { title: "groceries", body: "eggs" },
      { timeoutMs: 10_000 },
    );
    expect(text(saved)).toContain("saved note 1: groceries");
  });

  test("C3: `toolledger clear` from another process reaches the served conversation and its client only", async () => {
    const conv = (await conversations()).find((c) => c.client === "client-a 1.2.3")!;
    expect(conv.enabled).toBe(1);
    const before = a.changes;
    const cleared = await runCli(["clear", conv.session, "--db", db], {
      cwd: dir,
      env: cleanEnv(dir),
    });
    expect(cleared.stderr).toContain("the conversation is open");
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toContain("notes__add_note deferred again");
    await eventually(() => a.changes > before, "client-a's tools/list_changed after the clear");
    expect(await a.names()).toEqual(["enable_tools"]);
    const again = await a.connection.callTool(
      "notes__add_note",
      { title: "x", body: "y" },
      { timeoutMs: 10_000 },
    );
    expect(again.isError).toBe(true);
    expect(b.changes).toBe(0);
    const replay = await runCli(["replay", conv.session, "--db", db], { cwd: dir });
    expect(replay.stdout).toMatch(/Cleared +- no longer enabled: notes__add_note/);
  });

  test("C3/C4: stopping the gateway closes both conversations; their calls and refusals are counted", async () => {
    expect(await serve.stop()).toBe(130);
    const closed = await conversations();
    expect(closed.every((c) => c.status === "closed")).toBe(true);
    const byClient = new Map(closed.map((c) => [c.client, c]));
    // a: enable, add_note, refused add_note after the clear; b: its refused add_note.
    expect(byClient.get("client-a 1.2.3")!.calls).toBe(3);
    expect(byClient.get("client-b 1.2.3")!.calls).toBe(1);
  });

  test("C4: audit --calls says who called what and what was refused; explain answers for enable_tools and lists a tool's calls", async () => {
    const a = (await conversations()).find((c) => c.client === "client-a 1.2.3")!;
    const audit = await runCli(["audit", "--calls", "--json", "--db", db], { cwd: dir });
    expect(audit.code).toBe(0);
    const calls = (JSON.parse(audit.stdout) as { calls: Record<string, unknown>[] }).calls;
    expect(calls.map((c) => [c.client, c.publicName, c.outcome, c.reason])).toEqual([
      ["client-a 1.2.3", "enable_tools", "ok", null],
      ["client-b 1.2.3", "notes__add_note", "refused", "TOOL_NOT_ENABLED"],
      ["client-a 1.2.3", "notes__add_note", "ok", null],
      ["client-a 1.2.3", "notes__add_note", "refused", "TOOL_NOT_ENABLED"],
    ]);
    const csv = await runCli(["audit", "--calls", "--outcome", "refused", "--csv", "--db", db], {
      cwd: dir,
    });
    const rows = csv.stdout.trim().split("\r\n");
    expect(rows[0]).toBe(
      "session,call_id,client,name,public_name,owner,outcome,reason,duration_ms,started_at,finished_at,error,registry",
    );
    expect(rows).toHaveLength(3);
    const explained = await runCli(
      ["explain", "enable_tools", "--session", a.session, "--db", db, "--json"],
      {
        cwd: dir,
      },
    );
    expect(explained.code).toBe(0);
    const e = JSON.parse(explained.stdout) as { status: string; calls: { outcome: string }[] };
    expect(e.status).toBe("builtin");
    expect(e.calls.map((c) => c.outcome)).toEqual(["ok"]);
    const history = await runCli(
      ["explain", "notes__add_note", "--session", a.session, "--db", db],
      {
        cwd: dir,
      },
    );
    expect(history.stdout).toMatch(/C4 +called 2 time\(s\): 1 ok, 1 refused \(TOOL_NOT_ENABLED\)/);
  });

  test("prune removes whole conversations, and a registry stream only once no conversation observes it", async () => {
    const before = await conversations();
    const [a, b] = ["client-a 1.2.3", "client-b 1.2.3"].map(
      (client) => before.find((c) => c.client === client)!,
    );
    const dry = await runCli(["prune", "--before", "0d", "--dry-run", "--json", "--db", db], {
      cwd: dir,
    });
    if (database.kind === "postgres") {
      // Maintenance rewrites a SQLite file; on PostgreSQL it is SQL, as the message says.
      expect(dry.code).toBe(2);
      expect(dry.stderr).toContain("prune rewrites SQLite files");
      expect(dry.stderr).toContain("delete whole streams with SQL");
      return;
    }
    expect(dry.stderr).toBe("");
    expect(dry.code).toBe(0);
    expect(
      (JSON.parse(dry.stdout) as { streams: { streamId: string }[] }).streams
        .map((s) => s.streamId)
        .sort(),
    ).toEqual([a!.session, b!.session, a!.registry].sort());
    expect(await conversations()).toHaveLength(2);

    const one = await runCli(["prune", b!.session, "--db", db], { cwd: dir });
    expect(one.code).toBe(0);
    const all = await runCli(["sessions", "--all", "--db", db, "--json"], { cwd: dir });
    expect((JSON.parse(all.stdout) as { session: string }[]).map((s) => s.session).sort()).toEqual(
      [a!.session, a!.registry, "pins"].sort(),
    );
    const replay = await runCli(["replay", a!.session, "--db", db], { cwd: dir });
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain("ConversationClosed");

    const rest = await runCli(["prune", "--before", "0d", "--db", db], { cwd: dir });
    expect(rest.stderr).toMatch(/removed 2 stream\(s\)/);
    // The pins ledger is never pruned (P4: approvals outlive every conversation).
    const none = await runCli(["sessions", "--all", "--db", db, "--json"], { cwd: dir });
    expect((JSON.parse(none.stdout) as { kind: string }[]).map((s) => s.kind)).toEqual(["pins"]);
    const log = await runCli(["scrub", "--list", "--json", "--db", db], { cwd: dir });
    expect((JSON.parse(log.stdout) as { action: string }[]).map((r) => r.action)).toEqual([
      "prune",
      "prune",
    ]);
  });
});
