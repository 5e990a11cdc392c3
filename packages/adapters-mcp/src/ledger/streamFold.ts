import { type EventStore, evolve, type State, type ToolledgerEvent } from "@toolledger/core";
import { BehaviorSubject, type Observable, Subject } from "rxjs";
import type { StreamEvent } from "./streamEvent.js";

/**
 * A stream as one writer folds it: its version, its state, and every event told once stored
 * (by this writer) or found (another writer's, by a catch-up). The writer decides; this folds.
 */
export class StreamFold {
  readonly streamId: string;
  readonly events$: Observable<StreamEvent>;
  readonly state$: Observable<State>;
  readonly #events = new Subject<StreamEvent>();
  readonly #state: BehaviorSubject<State>;
  #version: number;
  /** How many events of other writers were folded (catch-ups). */
  #foreign = 0;

  constructor(streamId: string, seed: State, version: number) {
    this.streamId = streamId;
    this.#version = version;
    this.#state = new BehaviorSubject(seed);
    this.events$ = this.#events.asObservable();
    this.state$ = this.#state.asObservable();
  }

  get state(): State {
    return this.#state.value;
  }

  get version(): number {
    return this.#version;
  }

  get foreign(): number {
    return this.#foreign;
  }

  /**
   * Folds a batch this writer stored at `firstGlobal`, its stream version now `next`. A group
   * of call events (`oneState`) is folded into one new state before its events are told:
   * nothing decides between them, and every state emitted is work for each view of the stream
   * (the gateway's served list, per event).
   */
  stored(
    batch: readonly { eventId: string; event: ToolledgerEvent }[],
    next: number,
    firstGlobal: number,
    oneState = false,
  ): void {
    const first = this.#version + 1;
    this.#version = next;
    const told = batch.map(({ eventId, event }, i) => ({
      streamId: this.streamId,
      streamPosition: first + i,
      globalPosition: firstGlobal + i,
      eventId,
      event,
    }));
    if (!oneState) {
      for (const e of told) this.#fold(e);
      return;
    }
    let state = this.state;
    for (const { event } of batch) state = evolve(state, event);
    this.#state.next(state);
    for (const e of told) this.#events.next(e);
  }

  /**
   * Folds what was appended after the version it knows; `ours` tells an event this writer
   * stored by an attempt whose answer was lost from another writer's. Returns how many arrived.
   */
  async catchUp(store: EventStore, ours: (eventId: string) => boolean): Promise<number> {
    let arrived = 0;
    for (;;) {
      const batch = await store.readStream(this.streamId, {
        fromPosition: this.#version + 1,
        maxCount: 1000,
      });
      for (const stored of batch) {
        this.#version = stored.streamPosition;
        const own = ours(stored.eventId);
        if (!own) this.#foreign++;
        this.#fold({
          streamId: stored.streamId,
          streamPosition: stored.streamPosition,
          globalPosition: stored.globalPosition,
          eventId: stored.eventId,
          event: stored.event,
          ...(own ? {} : { external: true }),
        });
      }
      arrived += batch.length;
      if (batch.length < 1000) return arrived;
    }
  }

  complete(): void {
    this.#events.complete();
  }

  #fold(e: StreamEvent): void {
    this.#state.next(evolve(this.state, e.event));
    this.#events.next(e);
  }
}
