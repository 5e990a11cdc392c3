import { median } from "./stats.js";

export interface Interleaved {
  /** One measurement per round, warm-up rounds excluded. */
  toolledger: number[];
  baseline: number[];
  toolledgerMedian: number;
  baselineMedian: number;
}

export interface InterleaveOptions {
  rounds: number;
  /** Rounds run first and discarded (JIT warm-up). Default 1. */
  warmup?: number;
}

type Measure = () => number | Promise<number>;

/**
 * Runs the toolledger path and its baseline alternately, in the same process, on the same
 * data; the order flips every round so drift (heat, GC debt) falls on both sides alike.
 */
export async function interleave(
  options: InterleaveOptions,
  toolledger: Measure,
  baseline: Measure,
): Promise<Interleaved> {
  const warmup = options.warmup ?? 1;
  const a: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < warmup + options.rounds; round++) {
    let x: number;
    let y: number;
    if (round % 2 === 0) {
      x = await toolledger();
      y = await baseline();
    } else {
      y = await baseline();
      x = await toolledger();
    }
    if (round >= warmup) {
      a.push(x);
      b.push(y);
    }
  }
  return { toolledger: a, baseline: b, toolledgerMedian: median(a), baselineMedian: median(b) };
}

/** Milliseconds taken by `fn`. */
export function timeMs(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

/** Milliseconds taken by an async `fn`. */
export async function timeMsAsync(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Runs a full GC when node was started with --expose-gc. */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) gc();
}
