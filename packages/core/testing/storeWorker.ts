// The worker side of the stores' multi-process tests (crash, contention): what every store's
// worker process does alike. A plain module (no vitest): workers run as plain Node processes.
// The test side is `storeWorkerRuns.ts`.
import { writeSync } from "node:fs";
import { type EventStore, EventStoreError, type ToolledgerEventInput } from "@toolledger/core";

/** A valid event whose content depends on `seed`. */
export function workerEvent(seed: string): ToolledgerEventInput {
  return { type: "EnableToolsRequested", v: 1, callId: seed, names: [`ext__${seed}`] };
}

/**
 * Writes one line to stdout synchronously: a queued write would be lost with a killed
 * process, and a test counting acknowledgements would see a batch stored two past the last.
 */
export function say(line: string): void {
  writeSync(1, `${line}\n`);
}

/** Resolves when the test writes "go" (any data) to the worker's stdin. */
export function waitForGo(): Promise<void> {
  return new Promise((resolve) => process.stdin.once("data", () => resolve()));
}

/** Prints the worker's report as one JSON line and lets the process end. */
export function report(value: unknown): void {
  say(JSON.stringify(value));
  process.stdin.destroy();
}

/**
 * The crash tests' writer: appends numbered batches (sizes 1–4, ids `${prefix}-b${n}-e${j}`,
 * metadata `{ batch, size }`) to `stream` until killed, printing `ack n` after each.
 */
export async function appendUntilKilled(
  store: EventStore,
  stream: string,
  prefix: string,
): Promise<never> {
  for (let n = 0; ; n++) {
    const size = 1 + (n % 4);
    const events = Array.from({ length: size }, (_, j) => ({
      eventId: `${prefix}-b${n}-e${j}`,
      event: workerEvent(`${prefix}-b${n}-e${j}`),
      metadata: { batch: n, size },
    }));
    const result = await store.append(stream, events, "any");
    if (!result.ok) throw new Error(`batch ${n} refused: ${JSON.stringify(result.error)}`);
    say(`ack ${n}`);
  }
}

/**
 * One attempt of the contention race: appends `w${worker}-v${k}` to stream `race` expecting
 * exactly version k. "won", the rejection's code, or the error thrown (an EventStoreError's
 * code; anything else is a raw error that escaped the store).
 */
export async function raceForVersion(
  store: EventStore,
  worker: string,
  k: number,
): Promise<string> {
  try {
    const result = await store.append(
      "race",
      [{ eventId: `w${worker}-v${k}`, event: workerEvent(`w${worker}-v${k}`) }],
      k,
    );
    return result.ok ? "won" : result.error.code;
  } catch (error) {
    return error instanceof EventStoreError
      ? `EventStoreError:${error.code}`
      : `raw:${String(error)}`;
  }
}
