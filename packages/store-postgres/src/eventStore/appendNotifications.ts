import type { AbortSignalLike, AppendWaker } from "@toolledger/core";
import type { Connection, Listener } from "../database/connection.js";

/** Notifications remembered, so a subscription can tell whether one since its read concerns it. */
const RECENT = 1024;

interface Notified {
  /** The global position of the appended batch's last event. */
  position: number;
  /** Its stream, or null when the payload did not carry it (a very long stream id). */
  streamId: string | null;
}

interface Waiter {
  after: number;
  streamId: string | undefined;
  wake(): void;
}

/**
 * The store's LISTEN on its channel, shared by all its subscriptions: one connection however
 * many conversations follow the log. A notification wakes the subscriptions it may concern;
 * every (re)connect wakes all of them, since notifications sent while the connection was
 * down are lost. It only wakes: subscriptions then read the table, which is the truth.
 */
export class AppendNotifications implements AppendWaker {
  readonly #connection: Connection;
  readonly #channel: string;
  #listener: Listener | null = null;
  /** Counts notifications and reconnects; `recent[seq % RECENT]` is notification `seq`. */
  #seq = 0;
  /** The seq of the latest (re)connect: a mark older than it may have missed notifications. */
  #connectedAt = 0;
  readonly #recent: (Notified | null)[] = new Array(RECENT).fill(null);
  readonly #waiters = new Set<Waiter>();
  /** Called with each listening failure (the store reports none: reads carry errors). */
  onFailure: (error: unknown) => void = () => {};

  constructor(connection: Connection, channel: string) {
    this.#connection = connection;
    this.#channel = channel;
  }

  mark(): number {
    this.#start();
    return this.#seq;
  }

  wait(
    mark: number,
    after: number,
    streamId: string | undefined,
    timeoutMs: number,
    signal: AbortSignalLike | undefined,
  ): Promise<void> {
    this.#start();
    if (this.#missedSince(mark, after, streamId) || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", finish);
        this.#waiters.delete(waiter);
        resolve();
      };
      const waiter: Waiter = { after, streamId, wake: finish };
      const timer = setTimeout(finish, timeoutMs);
      signal?.addEventListener("abort", finish, { once: true });
      this.#waiters.add(waiter);
    });
  }

  /** Stops listening and wakes every waiter (their next read reports the closed store). */
  async close(): Promise<void> {
    const listener = this.#listener;
    this.#listener = null;
    this.#wakeAll();
    await listener?.close();
  }

  /** Whether something since `mark` may concern a subscriber after `after` on `streamId`. */
  #missedSince(mark: number, after: number, streamId: string | undefined): boolean {
    if (mark === this.#seq) return false;
    if (mark < this.#connectedAt || this.#seq - mark > RECENT) return true;
    for (let s = mark + 1; s <= this.#seq; s++) {
      const n = this.#recent[s % RECENT];
      if (!n || concerns(n, after, streamId)) return true;
    }
    return false;
  }

  #start(): void {
    if (this.#listener) return;
    this.#listener = this.#connection.listen(this.#channel, {
      notification: (payload) => this.#notified(parsePayload(payload)),
      listening: () => {
        this.#seq++;
        this.#recent[this.#seq % RECENT] = null;
        this.#connectedAt = this.#seq;
        this.#wakeAll();
      },
      failed: (error) => this.onFailure(error),
    });
  }

  #notified(n: Notified): void {
    this.#seq++;
    this.#recent[this.#seq % RECENT] = n;
    for (const w of this.#waiters) if (concerns(n, w.after, w.streamId)) w.wake();
  }

  #wakeAll(): void {
    for (const w of [...this.#waiters]) w.wake();
  }
}

function concerns(n: Notified, after: number, streamId: string | undefined): boolean {
  if (n.position <= after) return false;
  return streamId === undefined || n.streamId === null || n.streamId === streamId;
}

/** `"<position> <stream id>"`, or `"<position>"` alone for a stream id too long for a payload. */
function parsePayload(payload: string): Notified {
  const space = payload.indexOf(" ");
  const position = Number(space === -1 ? payload : payload.slice(0, space));
  return {
    position: Number.isFinite(position) ? position : Number.POSITIVE_INFINITY,
    streamId: space === -1 ? null : payload.slice(space + 1),
  };
}
