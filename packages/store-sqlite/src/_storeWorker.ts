// A separate process for the crash and contention tests (they need real processes: a
// SIGKILL and several connections). Run from dist/: `node dist/_storeWorker.js <mode> …`.
import { writeSync } from "node:fs";
import { EventStoreError } from "@toolledger/core";
import { SqliteEventStore } from "./sqliteEventStore.js";

const [mode, file, ...rest] = process.argv.slice(2);

function event(seed: string) {
  return {
    type: "EnableToolsRequested" as const,
    v: 1 as const,
    callId: seed,
    names: [`ext__${seed}`],
  };
}

/** Appends numbered batches (sizes 1–4) and reports each acknowledged one on stdout. */
async function crash(prefix: string, durability: "full" | "normal"): Promise<void> {
  const store = SqliteEventStore.open(file!, { durability });
  writeSync(1, "ready\n");
  for (let n = 0; ; n++) {
    const size = 1 + (n % 4);
    const events = Array.from({ length: size }, (_, j) => ({
      eventId: `${prefix}-b${n}-e${j}`,
      event: event(`${prefix}-b${n}-e${j}`),
      metadata: { batch: n, size },
    }));
    const result = await store.append("crash", events, "any");
    if (!result.ok) throw new Error(`batch ${n} refused: ${JSON.stringify(result.error)}`);
    // Written synchronously: a queued write would be lost with the process, and the test
    // would see a batch stored two past the last acknowledgement it read.
    writeSync(1, `ack ${n}\n`);
  }
}

/** Races the other workers for every version 0..versions-1 of one stream with exact versions. */
async function contend(worker: string, versions: number): Promise<void> {
  const store = SqliteEventStore.open(file!, { durability: "normal", busyTimeoutMs: 20_000 });
  writeSync(1, "ready\n");
  await new Promise((resolve) => process.stdin.once("data", resolve));
  const outcomes: string[] = [];
  for (let k = 0; k < versions; k++) {
    try {
      const result = await store.append(
        "race",
        [{ eventId: `w${worker}-v${k}`, event: event(`w${worker}-v${k}`) }],
        k,
      );
      outcomes.push(result.ok ? "won" : result.error.code);
    } catch (error) {
      outcomes.push(
        error instanceof EventStoreError ? `EventStoreError:${error.code}` : `raw:${String(error)}`,
      );
    }
  }
  await store.close();
  writeSync(1, `${JSON.stringify({ worker, outcomes })}\n`);
  process.stdin.destroy();
}

if (mode === "crash") await crash(rest[0]!, rest[1] === "normal" ? "normal" : "full");
else if (mode === "contend") await contend(rest[0]!, Number(rest[1]));
else
  throw new Error(
    `usage: _storeWorker.js crash <file> <prefix> [full|normal] | contend <file> <worker> <versions>`,
  );
