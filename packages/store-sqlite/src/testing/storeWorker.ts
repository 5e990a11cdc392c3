// A separate process for the crash and contention tests (they need real processes: a
// SIGKILL and several connections). Run from dist/: `node dist/testing/storeWorker.js <mode> …`.
import {
  appendUntilKilled,
  raceForVersion,
  report,
  say,
  waitForGo,
} from "@toolledger/core/testing/storeWorker";
import { SqliteEventStore } from "../eventStore/sqliteEventStore.js";

const [mode, file, ...rest] = process.argv.slice(2);

/** Appends numbered batches (sizes 1–4) and reports each acknowledged one on stdout. */
async function crash(prefix: string, durability: "full" | "normal"): Promise<void> {
  const store = SqliteEventStore.open(file!, { durability });
  say("ready");
  await appendUntilKilled(store, "crash", prefix);
}

/** Races the other workers for every version 0..versions-1 of one stream with exact versions. */
async function contend(worker: string, versions: number): Promise<void> {
  const store = SqliteEventStore.open(file!, { durability: "normal", busyTimeoutMs: 20_000 });
  say("ready");
  await waitForGo();
  const outcomes: string[] = [];
  for (let k = 0; k < versions; k++) outcomes.push(await raceForVersion(store, worker, k));
  await store.close();
  report({ worker, outcomes });
}

if (mode === "crash") await crash(rest[0]!, rest[1] === "normal" ? "normal" : "full");
else if (mode === "contend") await contend(rest[0]!, Number(rest[1]));
else
  throw new Error(
    `usage: storeWorker.js crash <file> <prefix> [full|normal] | contend <file> <worker> <versions>`,
  );
