// The test side of the stores' multi-process tests: watching worker processes and the checks
// every store's crash and contention tests make. The worker side is `storeWorker.ts`.
import type { ChildProcess } from "node:child_process";
import type { StoredEvent } from "@toolledger/core";
import { expect } from "vitest";
import { exited, lines } from "./processes.js";

export interface WorkerRun {
  child: ChildProcess;
  /** Resolves when the worker prints "ready". */
  ready: Promise<void>;
  exit: ReturnType<typeof exited>;
  stderr: () => string;
}

/** Watches a spawned worker: `ready` on its "ready" line; every other line goes to `onLine`. */
export function watchWorker(
  child: ChildProcess,
  onLine: (line: string) => void = () => {},
): WorkerRun {
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const out = lines(child, (line) => {
    if (line === "ready") markReady();
    else onLine(line);
  });
  return { child, ready, exit: exited(child), stderr: out.stderr };
}

/** Resolves when every worker is ready; one that exits first fails the test with its stderr, not a timeout. */
export async function allReady(runs: readonly WorkerRun[]): Promise<void> {
  await Promise.race([
    Promise.all(runs.map((r) => r.ready)),
    ...runs.map((r, i) =>
      r.exit.then((e) => {
        throw new Error(`worker ${i} exited before ready: ${JSON.stringify(e)}\n${r.stderr()}`);
      }),
    ),
  ]);
}

/** Waits for every worker to end and expects each to exit 0 (their stderr is the message). */
export async function expectAllExitCleanly(runs: readonly WorkerRun[]): Promise<void> {
  const exits = await Promise.all(runs.map((r) => r.exit));
  expect(exits, runs.map((r) => r.stderr()).join("\n")).toEqual(
    runs.map(() => ({ code: 0, signal: null })),
  );
}

/**
 * The contention race's outcome (see the worker's `raceForVersion`): exactly one "won" per
 * version, every other attempt a VERSION_CONFLICT value (no error, raw or not).
 */
export function expectOneWinnerPerVersion(
  reports: readonly { outcomes: readonly string[] }[],
  versions: number,
): void {
  for (let k = 0; k < versions; k++) {
    const atK = reports.map((r) => r.outcomes[k]);
    expect(
      atK.filter((o) => o === "won"),
      `version ${k}`,
    ).toHaveLength(1);
    expect(
      atK.filter((o) => o !== "won"),
      `version ${k}`,
    ).toEqual(Array(reports.length - 1).fill("VERSION_CONFLICT"));
  }
}

/** The race's stored events are the winners' (ids `w${worker}-v${k}`), in version order. */
export function expectWinnersStored(
  race: readonly StoredEvent[],
  reports: readonly { worker: string; outcomes: readonly string[] }[],
): void {
  for (const [k, e] of race.entries()) {
    const winner = reports.find((r) => r.outcomes[k] === "won")!;
    expect(e.eventId).toBe(`w${winner.worker}-v${k}`);
  }
}

/**
 * After writers were killed (see the worker's `appendUntilKilled`): no stored batch is
 * partial, every acknowledged one is there, and at most one more per writer (committed, not
 * yet reported). `acknowledged`: each writer's prefix and its last "ack n" (-1 for none).
 * Returns how many batches were acknowledged.
 */
export function expectAcknowledgedBatches(
  events: readonly StoredEvent[],
  acknowledged: ReadonlyMap<string, number>,
): number {
  const batches = new Map<string, { size: number; ids: string[] }>();
  for (const e of events) {
    const [prefix, b] = e.eventId.split("-");
    const key = `${prefix}-${b}`;
    const entry = batches.get(key) ?? { size: e.metadata.size as number, ids: [] };
    entry.ids.push(e.eventId);
    batches.set(key, entry);
  }
  // None partial: every stored batch has all its events, in order.
  for (const [key, { size, ids }] of batches) {
    expect(ids, key).toEqual(Array.from({ length: size }, (_, j) => `${key}-e${j}`));
  }
  let total = 0;
  for (const [prefix, acks] of acknowledged) {
    total += acks + 1;
    for (let n = 0; n <= acks; n++) {
      expect(batches.has(`${prefix}-b${n}`), `${prefix}-b${n}`).toBe(true);
    }
    expect(batches.has(`${prefix}-b${acks + 2}`)).toBe(false);
  }
  return total;
}
