import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { ExtensionConnection } from "@toolledger/adapters-mcp";
import { describeWithPostgres, uniqueSchema } from "@toolledger/store-postgres/vitest";
import { afterAll, beforeAll, expect, test } from "vitest";
import { cleanEnv, runCli, SERVERS, tempDir } from "../../testing/spawnCli.js";
import { eventually, type ServeProcess, startServeHttp } from "../../testing/startServe.js";
import { describeEachStore } from "../../testing/testDatabases.js";

// What only a server-backed store adds: moving sessions between stores, connection strings
// in messages, and many gateway hosts writing to one database.

interface ExportedLine {
  session: string;
  streamId?: string;
  position: number;
  eventId: string;
  metadata: Record<string, unknown>;
  event: unknown;
}

/** An export's lines without what an import itself records (its source, the store's clock). */
function comparable(text: string): unknown[] {
  return text
    .trim()
    .split("\n")
    .map((l) => {
      const {
        recordedAt: _,
        metadata,
        ...rest
      } = JSON.parse(l) as ExportedLine & {
        recordedAt: string;
      };
      const { importedFrom: __, ...own } = metadata;
      return { ...rest, metadata: own };
    });
}

describeWithPostgres("moving a session between SQLite and PostgreSQL", (url) => {
  const dir = tempDir();
  const sqliteDb = join(dir, "sessions.db");
  const pgDb = (() => {
    const u = new URL(url);
    u.searchParams.set("schema", uniqueSchema("move"));
    return u.href;
  })();
  let session = "";

  beforeAll(async () => {
    const demo = await runCli(["demo", "--db", sqliteDb], {
      cwd: dir,
      env: cleanEnv(dir),
      timeoutMs: 60_000,
    });
    expect(demo.code, demo.stderr).toBe(0);
    session = / replay (\S+) --db/.exec(demo.stdout)?.[1] ?? "";
  }, 90_000);

  test("export from SQLite, import into PostgreSQL, export, import into SQLite: the same conversation, registry and replay", async () => {
    const env = cleanEnv(dir);
    const run = async (args: string[]) => {
      const r = await runCli(args, { cwd: dir, env });
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      return r;
    };
    const a = join(dir, "a.jsonl");
    const b = join(dir, "b.jsonl");
    const c = join(dir, "c.jsonl");
    const back = join(dir, "back.db");
    await run(["export", session, "--db", sqliteDb, "-o", a]);
    expect((await run(["import", a, "--db", pgDb])).stdout.trim()).toBe(session);
    await run(["export", session, "--db", pgDb, "-o", b]);
    expect((await run(["import", b, "--db", back])).stdout.trim()).toBe(session);
    await run(["export", session, "--db", back, "-o", c]);
    const original = comparable(readFileSync(a, "utf8"));
    expect(original.length).toBeGreaterThan(10);
    // Ids, streams, positions, events and metadata survive both moves.
    expect(comparable(readFileSync(b, "utf8"))).toEqual(original);
    expect(comparable(readFileSync(c, "utf8"))).toEqual(original);
    const replay = async (db: string) =>
      (await run(["replay", session, "--db", db, "--jsonl"])).stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { changes: unknown }).changes);
    expect(await replay(pgDb)).toEqual(await replay(sqliteDb));
    const audit = async (db: string) =>
      JSON.parse((await run(["audit", "--session", session, "--db", db, "--json"])).stdout) as {
        requests: { outcome: string; names: string[] }[];
      };
    expect((await audit(pgDb)).requests.map((r) => [r.outcome, r.names])).toEqual(
      (await audit(sqliteDb)).requests.map((r) => [r.outcome, r.names]),
    );
  });
});

describeWithPostgres("connection strings in messages", (url) => {
  const dir = tempDir();
  const password = new URL(url).password;

  test("a wrong password, an unreachable server and a missing store: clear errors, never the password", async () => {
    const wrong = new URL(url);
    wrong.password = "not-the-password-0451";
    const denied = await runCli(["sessions", "--db", wrong.href], { cwd: dir });
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain(`${wrong.username}:***@${wrong.host}`);
    expect(denied.stderr).toContain("password authentication failed");
    expect(denied.stderr).not.toContain("not-the-password-0451");

    const nowhere = new URL(url);
    nowhere.port = "1";
    const down = await runCli(["sessions", "--db", nowhere.href], { cwd: dir });
    expect(down.code).toBe(6);
    expect(down.stderr).toContain("ECONNREFUSED");
    expect(down.stderr).toContain("check that the server is running");
    expect(down.stderr).not.toContain(password);

    const schema = uniqueSchema("missing");
    const empty = new URL(url);
    empty.searchParams.set("schema", schema);
    const missing = await runCli(["replay", "some-session", "--db", empty.href], { cwd: dir });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("no toolledger event store here");
    expect(missing.stderr).not.toContain(password);
    // Reading created nothing: the next reader still finds no store.
    const again = await runCli(["sessions", "--db", empty.href], { cwd: dir });
    expect(again.code).toBe(4);

    // TOOLLEDGER_DB names a server as --db does.
    const fromEnv = await runCli(["sessions"], {
      cwd: dir,
      env: cleanEnv(dir, { TOOLLEDGER_DB: empty.href }),
    });
    expect(fromEnv.code).toBe(4);
    expect(fromEnv.stderr).toContain(`(schema ${schema})`);
    expect(fromEnv.stderr).not.toContain(password);
  });
});

describeEachStore("many gateway hosts on one database", (database) => {
  let dir: string;
  let db: string;
  const serves: ServeProcess[] = [];
  const clients: ExtensionConnection[] = [];

  beforeAll(async () => {
    dir = tempDir();
    db = database.fresh(dir, "shared");
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { notes: { command: process.execPath, args: [join(SERVERS, "notes.js")] } },
      }),
    );
    for (let i = 0; i < 2; i++) {
      serves.push(await startServeHttp(["--config", config, "--db", db], dir));
    }
    for (const [i, serve] of serves.entries()) {
      for (const name of [`host${i}-client-a`, `host${i}-client-b`]) {
        clients.push(
          await ExtensionConnection.connect(
            { type: "streamable_http", name, url: serve.url },
            { clientInfo: { name, version: "1.0.0" }, connectTimeoutMs: 20_000 },
          ),
        );
      }
    }
  }, 90_000);

  afterAll(async () => {
    for (const c of clients) await c.close();
    for (const s of serves) await s.stop();
  });

  test("each serve keeps its own registry stream and conversations; sessions lists them all with their host", async () => {
    type Row = {
      session: string;
      kind: string;
      client: string | null;
      host: string;
      registry: string;
    };
    const list = async (all: boolean) => {
      const r = await runCli(["sessions", ...(all ? ["--all"] : []), "--db", db, "--json"], {
        cwd: dir,
        env: cleanEnv(dir),
      });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Row[];
    };
    await eventually(async () => (await list(false)).length === 4, "four conversations");
    const conversations = await list(false);
    const registries = (await list(true)).filter((r) => r.kind === "registry");
    expect(registries).toHaveLength(2);
    expect(registries.every((r) => r.host === hostname())).toBe(true);
    // Each host's clients observe that host's registry stream, and only theirs.
    const byHost = (i: number) =>
      new Set(
        conversations.filter((c) => c.client?.startsWith(`host${i}-`)).map((c) => c.registry),
      );
    expect([...byHost(0)]).toHaveLength(1);
    expect([...byHost(1)]).toHaveLength(1);
    expect(new Set([...byHost(0), ...byHost(1)])).toEqual(
      new Set(registries.map((r) => r.session)),
    );
    expect(conversations.every((c) => c.kind === "conversation" && c.host === hostname())).toBe(
      true,
    );
  });
});

// A gateway on PostgreSQL while the server restarts or stops: storeRestart.e2e.test.ts.
