import type { EventStore } from "@toolledger/core";

/**
 * L2 across streams, within one process: a conversation decides against the registry it
 * reads, and the log orders the two streams by global position (C1). A registry append must
 * not land between a conversation's decision and its record, so the writers of one store share
 * a gate: a conversation decides and appends holding it shared (many at once), the registry
 * appends holding it alone, after the conversations' appends in flight and before new ones.
 */
export class AppendGate {
  #shared = 0;
  #exclusive = false;
  /** Exclusive holders waiting: they go before new shared ones. */
  readonly #writers: (() => void)[] = [];
  readonly #readers: (() => void)[] = [];

  /** Holds the gate shared; resolves to its release. */
  shared(): Promise<() => void> {
    if (!this.#exclusive && this.#writers.length === 0) {
      this.#shared++;
      return Promise.resolve(this.#releaseShared);
    }
    return new Promise((resolve) =>
      this.#readers.push(() => {
        this.#shared++;
        resolve(this.#releaseShared);
      }),
    );
  }

  /** Holds the gate alone; resolves to its release. */
  exclusive(): Promise<() => void> {
    if (!this.#exclusive && this.#shared === 0) {
      this.#exclusive = true;
      return Promise.resolve(this.#releaseExclusive);
    }
    return new Promise((resolve) =>
      this.#writers.push(() => {
        this.#exclusive = true;
        resolve(this.#releaseExclusive);
      }),
    );
  }

  readonly #releaseShared = (): void => {
    this.#shared--;
    if (this.#shared === 0) this.#next();
  };

  readonly #releaseExclusive = (): void => {
    this.#exclusive = false;
    this.#next();
  };

  #next(): void {
    if (this.#exclusive || this.#shared > 0) return;
    const writer = this.#writers.shift();
    if (writer) {
      writer();
      return;
    }
    for (const reader of this.#readers.splice(0)) reader();
  }
}

const gates = new WeakMap<EventStore, AppendGate>();

/** The gate of `store` in this process. */
export function appendGate(store: EventStore): AppendGate {
  let gate = gates.get(store);
  if (!gate) {
    gate = new AppendGate();
    gates.set(store, gate);
  }
  return gate;
}
