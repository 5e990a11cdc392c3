import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { serverScriptPath, UPSTREAM_CLIENT_CAPABILITIES } from "@toolledger/adapters-mcp";
import type { BenchResult } from "./benchResult.js";
import { measured } from "./benchResult.js";
import { scratchDir } from "./scratchDir.js";
import { median } from "./stats.js";

// bench/dist/firstAnswer.js → the built CLI.
const CLI = fileURLToPath(new URL("../../packages/cli/dist/main.js", import.meta.url));
const require = createRequire(import.meta.url);

/** serve's default startup grace: how long a hung server holds the first list. */
const GRACE_S = 15;

interface Entry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/**
 * 11 (issue 20.2): how long a host waits, from spawning `toolledger serve`, for a first
 * tools/list that holds every healthy server (server-everything, server-memory and the
 * notes example), against the slowest of those servers' own start (spawned and listed by the
 * SDK's client directly). A first list that misses a healthy server is a failure, not a time.
 * 11: beside a never-initialising and a never-listing server, which hold the first list until
 * their startup grace ends (the default, 15 s: a hung server cannot be told from a slow one
 * before then). 11b: the healthy servers alone: the first list comes once they are ready.
 */
export async function firstAnswer(rounds: number): Promise<BenchResult[]> {
  const { dir, remove } = scratchDir("first-answer");
  try {
    const published = (name: "everything" | "memory"): Entry => {
      const pkg = require.resolve(`@modelcontextprotocol/server-${name}/package.json`);
      return {
        command: process.execPath,
        args: [join(dirname(pkg), "dist", "index.js"), ...(name === "everything" ? ["stdio"] : [])],
        ...(name === "memory" ? { env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } } : {}),
      };
    };
    const shipped = (script: Parameters<typeof serverScriptPath>[0], ...args: string[]) => ({
      command: process.execPath,
      args: [serverScriptPath(script), ...args],
    });
    const healthy: Record<string, Entry> = {
      everything: published("everything"),
      memory: published("memory"),
      notes: shipped("notes"),
    };
    const expected = new Map<string, string[]>();
    for (const [name, entry] of Object.entries(healthy))
      expected.set(
        name,
        (await listDirectly(entry)).names.map((n) => `${name}__${n}`),
      );
    const hungFile = join(dir, "hung.json");
    writeFileSync(
      hungFile,
      JSON.stringify({
        toolledger: { start_timeout: 300 },
        mcpServers: {
          ...healthy,
          noinit: shipped("slowStart", "--hang-init"),
          nolist: shipped("faulty", "--hang-list"),
        },
      }),
    );
    const healthyFile = join(dir, "healthy.json");
    writeFileSync(healthyFile, JSON.stringify({ mcpServers: healthy }));
    const withHung: number[] = [];
    const alone: number[] = [];
    const direct: number[] = [];
    const missed: string[] = [];
    for (let round = 0; round < Math.max(3, rounds * 2); round++) {
      // Alternate which runs first, so a loaded machine weighs on all alike.
      const runs: (() => Promise<void>)[] = [
        async () => {
          const r = await timeToFirstList(hungFile, join(dir, `h${round}.db`), expected);
          if (r.missing.length > 0) missed.push(...r.missing);
          else withHung.push(r.ms);
        },
        async () => {
          const r = await timeToFirstList(healthyFile, join(dir, `a${round}.db`), expected);
          if (r.missing.length > 0) missed.push(...r.missing);
          else alone.push(r.ms);
        },
        async () => {
          const starts = await Promise.all(Object.values(healthy).map(listDirectly));
          direct.push(Math.max(...starts.map((s) => s.ms)));
        },
      ];
      for (const run of round % 2 === 0 ? runs : runs.reverse()) await run();
    }
    const slowest = median(direct);
    const med = (xs: number[]) => (xs.length === 0 ? Number.NaN : median(xs));
    const failure =
      missed.length > 0 ? `; FAILED: a first list missed ${[...new Set(missed)].join(", ")}` : "";
    const result = (r: BenchResult): BenchResult =>
      failure === "" ? r : { ...r, status: "miss", note: `${r.note}${failure}` };
    return [
      result(
        measured({
          id: "11",
          name: "serve: first tools/list holding every healthy server, beside a never-initialising and a never-listing server",
          unit: "ms",
          toolledger: med(withHung),
          baseline: slowest,
          baselineName: "the slowest healthy server's own start (spawn, initialize, tools/list)",
          note: `healthy: server-everything, server-memory, notes; the hung servers hold the first list until their startup grace (the default, ${GRACE_S} s) ends; max ${Math.max(...withHung).toFixed(0)} ms`,
          details: { withHung, direct, graceMs: GRACE_S * 1000 },
        }),
      ),
      result(
        measured({
          id: "11b",
          name: "the same with the healthy servers alone",
          unit: "ms",
          toolledger: med(alone),
          baseline: slowest,
          baselineName: "the slowest healthy server's own start",
          note: "serve's own start (Node, module loading, the database, the host) plus the servers' starts on the same cores",
          details: { alone, direct },
        }),
      ),
    ];
  } finally {
    remove();
  }
}

/** Spawns serve as a host does; ms to the first tools/list answer, and which healthy servers it missed. */
async function timeToFirstList(
  config: string,
  db: string,
  expected: ReadonlyMap<string, string[]>,
): Promise<{ ms: number; missing: string[] }> {
  const client = new Client({ name: "toolledger-bench", version: "1.0.0" });
  const t = performance.now();
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--config", config, "--db", db],
      stderr: "ignore",
    }),
  );
  const names = new Set(
    (await client.listTools(undefined, { timeout: 120_000 })).tools.map((t) => t.name),
  );
  const ms = performance.now() - t;
  await client.close();
  const missing = [...expected]
    .filter(([, tools]) => tools.some((n) => !names.has(n)))
    .map(([server]) => server);
  return { ms, missing };
}

/** A server spawned and listed by the SDK's client directly, with toolledger's capabilities. */
async function listDirectly(entry: Entry): Promise<{ ms: number; names: string[] }> {
  const client = new Client(
    { name: "toolledger-bench", version: "1.0.0" },
    { capabilities: UPSTREAM_CLIENT_CAPABILITIES },
  );
  const t = performance.now();
  await client.connect(
    new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      ...(entry.env ? { env: { PATH: process.env.PATH ?? "", ...entry.env } } : {}),
      stderr: "ignore",
    }),
  );
  const first = (await client.listTools()).tools.map((t) => t.name);
  const ms = performance.now() - t;
  // server-everything adds tools once initialized: the full list, for the expectation.
  await new Promise((r) => setTimeout(r, 300));
  const names = (await client.listTools()).tools.map((t) => t.name);
  await client.close();
  return { ms, names: names.length >= first.length ? names : first };
}
