import type { EventStore, StoredEvent } from "./eventStore.js";

/** The part of `AbortSignal` the loop uses (a structural type: the core has no DOM or Node types). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

export interface SubscribeOptions {
  /** Deliver events with a global position strictly greater than this. Default 0. */
  after?: number;
  /** Follow one session (stream) only. */
  streamId?: string;
  /** Most events per delivered batch. Default 500. */
  batchSize?: number;
  /** First wait when nothing new arrived; doubled on each idle poll. Default 50 ms. */
  minIdleMs?: number;
  /** Longest wait between idle polls. Default 1000 ms. */
  maxIdleMs?: number;
  /** Ends the subscription (the loop returns; no error). */
  signal?: AbortSignalLike;
}

/**
 * Tells an idle subscription that the log may have grown, so it reads again at once instead
 * of at its next poll (PostgreSQL's LISTEN/NOTIFY). It only wakes: the reads stay the truth.
 */
export interface AppendWaker {
  /** Taken before each read; handed to `wait` after a read that found nothing. */
  mark(): number;
  /**
   * Resolves when an append that may matter (one after global position `after`, to `streamId`
   * when given) may have committed since `mark` was taken, after `timeoutMs`, or on abort.
   */
  wait(
    mark: number,
    after: number,
    streamId: string | undefined,
    timeoutMs: number,
    signal: AbortSignalLike | undefined,
  ): Promise<void>;
}

/**
 * A catch-up subscription: yields batches of events after a global position, in global order,
 * as other processes append them. It reads again at once after a batch; while idle it waits
 * for `waker` (when the store has one) or polls, backing off from `minIdleMs` to `maxIdleMs`.
 * Ends when `signal` aborts or the consumer breaks out; a store error ends it by throwing.
 * Correct for any store whose global positions become visible in order (both stores' contract).
 */
export async function* subscribe(
  store: EventStore,
  options: SubscribeOptions = {},
  waker?: AppendWaker,
): AsyncGenerator<StoredEvent[], void, undefined> {
  const batchSize = Math.max(1, options.batchSize ?? 500);
  const minIdle = Math.max(1, options.minIdleMs ?? 50);
  const maxIdle = Math.max(minIdle, options.maxIdleMs ?? 1000);
  const signal = options.signal;
  const streamId = options.streamId;
  let after = Math.max(0, options.after ?? 0);
  let idle = minIdle;
  // Following one stream reads it by stream position, found once from the global position.
  let nextStreamPosition =
    streamId === undefined ? 0 : await firstStreamPositionAfter(store, streamId, after);
  while (!signal?.aborted) {
    const mark = waker?.mark() ?? 0;
    const batch =
      streamId === undefined
        ? await store.readAll({ after, limit: batchSize })
        : await store.readStream(streamId, {
            fromPosition: nextStreamPosition,
            maxCount: batchSize,
          });
    if (batch.length > 0) {
      const last = batch[batch.length - 1]!;
      after = last.globalPosition;
      nextStreamPosition = last.streamPosition + 1;
      idle = minIdle;
      yield batch;
      continue;
    }
    if (waker) await waker.wait(mark, after, streamId, maxIdle, signal);
    else {
      await sleep(idle, signal);
      idle = Math.min(maxIdle, idle * 2);
    }
  }
}

async function firstStreamPositionAfter(
  store: EventStore,
  streamId: string,
  after: number,
): Promise<number> {
  if (after === 0) return 1;
  let from = 1;
  for (;;) {
    const page = await store.readStream(streamId, { fromPosition: from, maxCount: 1000 });
    for (const e of page) if (e.globalPosition > after) return e.streamPosition;
    if (page.length < 1000) return from + page.length;
    from += page.length;
  }
}

/** The host's timers, typed here: the core has no DOM or Node types, and every JS host has these. */
const timers = globalThis as unknown as {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
};

/** Resolves after `ms` or on abort, whichever comes first. */
export function sleep(ms: number, signal: AbortSignalLike | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = timers.setTimeout(done, ms);
    function done(): void {
      timers.clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
