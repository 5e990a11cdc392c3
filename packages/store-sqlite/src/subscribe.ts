import type { EventStore, StoredEvent } from "@toolledger/core";

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
  signal?: AbortSignal;
}

/**
 * A polling subscription: yields batches of events after a global position, in global order,
 * as other processes append them. It polls again at once after a batch and backs off
 * (doubling from `minIdleMs` to `maxIdleMs`) while idle. Ends when `signal` aborts or the
 * consumer breaks out; a store error ends it by throwing.
 */
export async function* subscribe(
  store: EventStore,
  options: SubscribeOptions = {},
): AsyncGenerator<StoredEvent[], void, undefined> {
  const batchSize = Math.max(1, options.batchSize ?? 500);
  const minIdle = Math.max(1, options.minIdleMs ?? 50);
  const maxIdle = Math.max(minIdle, options.maxIdleMs ?? 1000);
  const signal = options.signal;
  let after = Math.max(0, options.after ?? 0);
  let idle = minIdle;
  // Following one stream reads it by stream position, found once from the global position.
  let nextStreamPosition =
    options.streamId === undefined
      ? 0
      : await firstStreamPositionAfter(store, options.streamId, after);
  while (!signal?.aborted) {
    let batch: StoredEvent[];
    if (options.streamId === undefined) {
      batch = await store.readAll({ after, limit: batchSize });
    } else {
      batch = await store.readStream(options.streamId, {
        fromPosition: nextStreamPosition,
        maxCount: batchSize,
      });
    }
    if (batch.length > 0) {
      const last = batch[batch.length - 1]!;
      after = last.globalPosition;
      nextStreamPosition = last.streamPosition + 1;
      idle = minIdle;
      yield batch;
      continue;
    }
    await sleep(idle, signal);
    idle = Math.min(maxIdle, idle * 2);
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

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
