import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ExtensionConnection } from "@toolledger/adapters-mcp";
import {
  findPostgresBinaries,
  startThrowawayCluster,
  type ThrowawayCluster,
} from "@toolledger/store-postgres/testing";
import { describe, expect, test } from "vitest";
import { cleanEnv, runCli, SERVERS, tempDir } from "../../testing/spawnCli.js";
import { eventually, type ServeProcess, startServeHttp } from "../../testing/startServe.js";

// C4 through the built `serve` on a real PostgreSQL server that goes away: every call a
// client saw answered ends up in the log with its start and its finish, or `serve` says on
// stderr which call's events it lost. Each test runs a server of its own (it stops it).

interface CallRecord {
  callId: string;
  client: string | null;
  outcome: string | null;
}

const binaries = findPostgresBinaries();
const describeWithBinaries = binaries === null ? describe.skip : describe;

function calculatorConfig(dir: string): string {
  const config = join(dir, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        calculator: { command: process.execPath, args: [join(SERVERS, "calculator.js")] },
      },
    }),
  );
  return config;
}

async function auditCalls(db: string, dir: string): Promise<CallRecord[]> {
  const r = await runCli(["audit", "--calls", "--json", "--db", db], {
    cwd: dir,
    env: cleanEnv(dir),
  });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { calls: CallRecord[] }).calls;
}

async function connect(url: string, name: string): Promise<ExtensionConnection> {
  return ExtensionConnection.connect(
    { type: "streamable_http", name, url },
    { clientInfo: { name, version: "1.0.0" }, connectTimeoutMs: 20_000 },
  );
}

/** `6*7 = 42` for a call the calculator answered; `error: …` for anything else. */
async function calculate(client: ExtensionConnection, expression: string): Promise<string> {
  try {
    const r = await client.callTool("calculator__calculate", { expression }, { timeoutMs: 20_000 });
    return r.isError ? `error: ${JSON.stringify(r.content)}` : JSON.stringify(r.content);
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

describeWithBinaries(
  `serve while its PostgreSQL server goes away${binaries === null ? " (skipped: no PostgreSQL server binaries to run a server of its own)" : ""}`,
  () => {
    test("three serves, six clients, a fast restart under load: every answered call has its start and its finish; serve says what it held and that it stored it", async () => {
      const cluster: ThrowawayCluster = await startThrowawayCluster({
        settings: { fsync: "off" },
      });
      const dir = tempDir();
      const config = calculatorConfig(dir);
      const serves: ServeProcess[] = [];
      const clients: { name: string; connection: ExtensionConnection; answered: number }[] = [];
      let stop = false;
      try {
        for (let i = 0; i < 3; i++)
          serves.push(await startServeHttp(["--config", config, "--db", cluster.url], dir));
        for (const [i, serve] of serves.entries()) {
          for (const side of ["a", "b"]) {
            const name = `host${i}-client-${side}`;
            clients.push({ name, connection: await connect(serve.url, name), answered: 0 });
          }
        }
        const failures: string[] = [];
        const loops = clients.map(async (c, k) => {
          for (let i = 0; !stop; i++) {
            const text = await calculate(c.connection, `${i} + ${k}`);
            if (text.includes(`${i} + ${k} = ${i + k}`)) c.answered++;
            else failures.push(`${c.name}: ${text}`);
          }
        });
        const least = () => Math.min(...clients.map((c) => c.answered));
        await eventually(() => least() >= 20, "20 answered calls per client");
        const before = least();
        await cluster.restart("fast");
        await eventually(() => least() >= before + 20, "20 more answered calls per client");
        stop = true;
        await Promise.all(loops);

        // Every call a client saw answered is in the log with its finish, once the store took it.
        const answered = new Map(clients.map((c) => [`${c.name} 1.0.0`, c.answered]));
        let calls: CallRecord[] = [];
        await eventually(
          async () => {
            calls = await auditCalls(cluster.url, dir);
            return [...answered].every(
              ([client, n]) =>
                calls.filter((c) => c.client === client && c.outcome === "ok").length === n,
            );
          },
          "every answered call recorded as ok",
          30_000,
        ).catch((error: unknown) => {
          const open = calls.filter((c) => c.outcome === null);
          throw new Error(
            `${(error as Error).message}: ${open.length} call(s) started and never finished (${open
              .map((c) => c.callId)
              .join(", ")}); answered ${JSON.stringify([...answered])}`,
          );
        });
        expect(calls.filter((c) => c.outcome === null)).toEqual([]);
        expect(calls.filter((c) => c.outcome !== "ok")).toEqual([]);
        expect(failures).toEqual([]);

        for (const c of clients) await c.connection.close();
        for (const s of serves) await s.stop();
        const stderr = serves.map((s) => s.stderr());
        // A serve whose commits the restart refused said so, and said when they were stored.
        const held = stderr.filter((text) => /the event store refused \d+ call event/.test(text));
        expect(held.length, stderr.join("\n---\n")).toBeGreaterThan(0);
        for (const text of held) expect(text).toMatch(/held call event\(s\) stored after \d+ ms/);
        for (const text of stderr) expect(text).not.toContain("LOST");
      } finally {
        stop = true;
        for (const c of clients) await c.connection.close().catch(() => undefined);
        for (const s of serves) await s.stop();
        await cluster.remove();
      }
    }, 180_000);

    test("L1: a call while the server is down waits for its start to be stored, and is made once the server is back; one the store never takes is refused unmade, and what is held when serve stops is reported LOST, without the password", async () => {
      const cluster = await startThrowawayCluster();
      const password = new URL(cluster.url).password;
      const dir = tempDir();
      let serve: ServeProcess | undefined;
      let client: ExtensionConnection | undefined;
      try {
        serve = await startServeHttp(["--config", calculatorConfig(dir), "--db", cluster.url], dir);
        client = await connect(serve.url, "probe");
        expect(await calculate(client, "6*7")).toContain("6*7 = 42");
        await cluster.stop("fast");
        // Made only once its start is stored: the server comes back while the call waits.
        const waiting = calculate(client, "6*8");
        await eventually(
          () => /the event store refused \d+ call event/.test(serve!.stderr()),
          "serve saying it holds the call's start",
        );
        await cluster.start();
        expect(await waiting).toContain("6*8 = 48");
        await eventually(
          async () => (await auditCalls(cluster.url, dir)).length === 2,
          "both calls in the log",
        );
        expect((await auditCalls(cluster.url, dir)).map((c) => c.outcome)).toEqual(["ok", "ok"]);

        // Away for longer than a call waits (10 s): refused, never made; serve stops before the
        // server is back, and says which events it could not store.
        await cluster.stop("fast");
        expect(await calculate(client, "6*9")).toMatch(
          /was not called: its record could not be stored first/,
        );
        await client.close();
        client = undefined;
        await serve.stop();
        expect(serve.stderr()).toMatch(/LOST \d+ call event\(s\) the event store never took/);
        expect(serve.stderr()).not.toContain(password);
        await cluster.start();
        expect((await auditCalls(cluster.url, dir)).map((c) => c.outcome)).toEqual(["ok", "ok"]);
      } finally {
        await client?.close();
        await serve?.stop();
        await cluster.remove();
      }
    }, 120_000);

    test("relaxed: a call while the server is down is answered and recorded when it is back; one still held when serve stops is reported LOST on stderr, without the password", async () => {
      const cluster = await startThrowawayCluster();
      const password = new URL(cluster.url).password;
      const dir = tempDir();
      let serve: ServeProcess | undefined;
      let client: ExtensionConnection | undefined;
      try {
        serve = await startServeHttp(
          ["--config", calculatorConfig(dir), "--db", cluster.url, "--call-durability", "relaxed"],
          dir,
        );
        client = await connect(serve.url, "probe");
        expect(await calculate(client, "6*7")).toContain("6*7 = 42");
        await cluster.stop("fast");
        // The store is away: the call is made and answered, its events kept in memory.
        expect(await calculate(client, "6*8")).toContain("6*8 = 48");
        await eventually(
          () => /the event store refused \d+ call event/.test(serve!.stderr()),
          "serve saying it holds the call's events",
        );
        const warning = serve.stderr();
        expect(warning).toContain("127.0.0.1");
        expect(warning).toContain("toolledger:***@");
        await cluster.start();
        await eventually(
          () => /held call event\(s\) stored after \d+ ms/.test(serve!.stderr()),
          "serve saying the held events are stored",
        );
        const calls = await auditCalls(cluster.url, dir);
        expect(calls.map((c) => c.outcome)).toEqual(["ok", "ok"]);

        // Away again, and serve stops before it is back: what it held is reported lost.
        await cluster.stop("fast");
        expect(await calculate(client, "6*9")).toContain("6*9 = 54");
        await client.close();
        client = undefined;
        await serve.stop();
        expect(serve.stderr()).toMatch(
          /LOST 2 call event\(s\) the event store never took: call [0-9a-f-]{36} \(started calculator__calculate, finished ok\)/,
        );
        expect(serve.stderr()).not.toContain(password);
        await cluster.start();
        expect((await auditCalls(cluster.url, dir)).map((c) => c.outcome)).toEqual(["ok", "ok"]);
      } finally {
        await client?.close();
        await serve?.stop();
        await cluster.remove();
      }
    }, 120_000);
  },
);
