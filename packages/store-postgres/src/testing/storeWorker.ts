// A separate process for the concurrency, crash and restart tests (they need real processes:
// several connections, a SIGKILL). Run from dist/: `TOOLLEDGER_WORKER_URL=… node
// dist/testing/storeWorker.js <mode> <schema> …` (the URL comes from the environment: a password in
// argv would show in every process listing).
import type { ToolledgerEventInput } from "@toolledger/core";
import {
  appendUntilKilled,
  raceForVersion,
  report,
  say,
  waitForGo,
  workerEvent,
} from "@toolledger/core/testing/storeWorker";
import { PostgresEventStore } from "../eventStore/postgresEventStore.js";

const [mode, schema, ...rest] = process.argv.slice(2);
const url = process.env.TOOLLEDGER_WORKER_URL;

function open(): Promise<PostgresEventStore> {
  return PostgresEventStore.open(url!, { schema: schema!, poolSize: 2, lockTimeoutMs: 30_000 });
}

/**
 * Waits for "go" on stdin, then races the other writers for every version 0..versions-1 of
 * stream `race` with exact versions, and after each attempt appends a batch (1–4 events) to
 * its own stream with "any". Prints its outcomes as one JSON line.
 */
async function write(worker: string, versions: number): Promise<void> {
  const store = await open();
  say("ready");
  await waitForGo();
  const outcomes: string[] = [];
  let own = 0;
  for (let k = 0; k < versions; k++) {
    outcomes.push(await raceForVersion(store, worker, k));
    const size = 1 + (k % 4);
    const batch = Array.from({ length: size }, (_, j) => ({
      eventId: `w${worker}-b${k}-e${j}`,
      event: workerEvent(`w${worker}-b${k}-e${j}`),
    }));
    const result = await store.append(`w${worker}`, batch, "any");
    if (!result.ok) throw new Error(`own batch ${k} refused: ${JSON.stringify(result.error)}`);
    own += size;
  }
  await store.close();
  report({ worker, outcomes, own });
}

/** Subscribes from the start until `count` events arrived; prints what it got, in order. */
async function read(count: number): Promise<void> {
  const store = await open();
  const controller = new AbortController();
  const seen: [number, string, string, number][] = [];
  say("ready");
  for await (const batch of store.subscribe({ signal: controller.signal, batchSize: 50 })) {
    for (const e of batch) seen.push([e.globalPosition, e.eventId, e.streamId, e.streamPosition]);
    if (seen.length >= count) controller.abort();
  }
  await store.close();
  say(JSON.stringify(seen));
}

/** Appends numbered batches (sizes 1–4) and reports each acknowledged one on stdout. */
async function crash(prefix: string): Promise<void> {
  const store = await open();
  say("ready");
  await appendUntilKilled(store, "crash", prefix);
}

/**
 * For the 4-writer benchmark: reads a JSON array of events from `file`, says "ready", waits
 * for "go", appends them to `stream` in batches of `batch` with exact expected versions, and
 * prints the milliseconds it took.
 */
async function appendFile(stream: string, file: string, batch: number): Promise<void> {
  const { readFileSync } = await import("node:fs");
  const events = JSON.parse(readFileSync(file, "utf8")) as ToolledgerEventInput[];
  const store = await open();
  say("ready");
  await waitForGo();
  const start = performance.now();
  for (let from = 0; from < events.length; from += batch) {
    const slice = events
      .slice(from, from + batch)
      .map((event, i) => ({ eventId: `${stream}-e${from + i}`, event }));
    const result = await store.append(stream, slice, from);
    if (!result.ok) throw new Error(`append at ${from}: ${JSON.stringify(result.error)}`);
  }
  const ms = performance.now() - start;
  await store.close();
  report(ms);
}

if (mode === "write") await write(rest[0]!, Number(rest[1]));
else if (mode === "read") await read(Number(rest[0]));
else if (mode === "crash") await crash(rest[0]!);
else if (mode === "append-file") await appendFile(rest[0]!, rest[1]!, Number(rest[2]));
else
  throw new Error(
    "usage: TOOLLEDGER_WORKER_URL=<url> storeWorker.js write <schema> <worker> <versions> | read <schema> <count> | crash <schema> <prefix> | append-file <schema> <stream> <file> <batch>",
  );
