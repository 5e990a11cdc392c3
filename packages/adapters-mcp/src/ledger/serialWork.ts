import { AdapterError } from "../adapterError.js";

/** Resolves after the I/O callbacks of the current event-loop turn. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A stream writer's work, one piece at a time and in the order it was queued (its commands
 * and group commits): an idle queue starts work at once (a live host's usual case), a busy
 * one runs it after the last. Once closed, queued work that has not started is refused.
 */
export class SerialWork {
  #queue: Promise<unknown> = Promise.resolve();
  #busy = 0;
  #closed = false;

  /** Queues `work`; `afterIo`: started only after this turn's I/O callbacks. */
  run<T>(afterIo: boolean, work: () => Promise<T>): Promise<T> {
    const idle = this.#busy === 0;
    this.#busy++;
    const ready = idle ? null : this.#queue;
    const next = afterIo
      ? (ready ?? Promise.resolve()).then(nextTurn).then(() => this.#start(work))
      : ready
        ? ready.then(() => this.#start(work))
        : this.#start(work);
    // The caller gets the failure through `next`; the queue only needs to move on.
    this.#queue = next.then(this.#done, this.#done);
    return next;
  }

  /** Waits for what is queued, then refuses new work. */
  async close(): Promise<void> {
    await this.#queue.catch(() => undefined);
    this.#closed = true;
  }

  get closed(): boolean {
    return this.#closed;
  }

  #start<T>(work: () => Promise<T>): Promise<T> {
    if (this.#closed)
      return Promise.reject(new AdapterError("SESSION_CLOSED", "the session is closed"));
    return work();
  }

  readonly #done = (): void => {
    this.#busy--;
  };
}
