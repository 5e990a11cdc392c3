import { randomUUID } from "node:crypto";
import {
  type Command,
  decide,
  type EventStore,
  evolve,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import { BehaviorSubject, type Observable, Subject } from "rxjs";
import { redactCommand } from "./_redactCommand.js";
import { AdapterError } from "./adapterError.js";
import type { Redactor } from "./redactor.js";

/** An event of a stream as this process stored or read it. */
export interface SessionEvent {
  streamId: string;
  /** 1-based position in the stream. */
  streamPosition: number;
  globalPosition: number;
  eventId: string;
  event: ToolledgerEvent;
  /** True when another process appended it (C3: `toolledger clear` from the CLI). */
  external?: boolean;
}

/** Resolves after the I/O callbacks of the current event-loop turn. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** How many times an append that lost a race to another writer is decided again. */
const CONFLICT_RETRIES = 5;

/**
 * The one writer of a stream in this process: decides each command against the state at
 * the moment it runs (appends are serialised), appends with the exact expected version and
 * folds what was stored. When another process appended in between (VERSION_CONFLICT), it
 * folds their events first and decides again, so nobody's event is lost or overwritten.
 */
export class StreamWriter {
  readonly store: EventStore;
  readonly streamId: string;
  readonly events$: Observable<SessionEvent>;
  /** The stream's own fold (for a conversation: without the registry part). */
  readonly state$: Observable<State>;

  readonly #events = new Subject<SessionEvent>();
  readonly #state: BehaviorSubject<State>;
  readonly #now: () => Date;
  /** The state a command is decided against (a conversation composes the registry in). */
  readonly #view: (own: State) => State;
  /** The secrets no command may carry into an event (servers' text reaches commands). */
  readonly #redactor: () => Redactor | null;
  #version: number;
  #queue: Promise<unknown> = Promise.resolve();
  /** Commands queued or running. */
  #busy = 0;
  #finished = false;

  constructor(
    store: EventStore,
    streamId: string,
    seed: State,
    version: number,
    options: { now: () => Date; view?: (own: State) => State; redactor?: () => Redactor },
  ) {
    this.store = store;
    this.streamId = streamId;
    this.#version = version;
    this.#now = options.now;
    this.#view = options.view ?? ((own) => own);
    this.#redactor = options.redactor ?? (() => null);
    this.#state = new BehaviorSubject(seed);
    this.events$ = this.#events.asObservable();
    this.state$ = this.#state.asObservable();
  }

  /** Reads a stream's whole history and folds it over `seed`. */
  static async load(
    store: EventStore,
    streamId: string,
    seed: State,
  ): Promise<{ state: State; version: number; events: ToolledgerEvent[] }> {
    let state = seed;
    let version = 0;
    const events: ToolledgerEvent[] = [];
    for (;;) {
      const batch = await store.readStream(streamId, { fromPosition: version + 1, maxCount: 1000 });
      for (const stored of batch) {
        state = evolve(state, stored.event);
        events.push(stored.event);
      }
      version += batch.length;
      if (batch.length < 1000) return { state, version, events };
    }
  }

  get state(): State {
    return this.#state.value;
  }

  /** The stream's version (its last position) as this writer knows it. */
  get version(): number {
    return this.#version;
  }

  /**
   * Decides `make(state)` against the current state, appends and folds; returns the events.
   * `afterIo`: queued now (every later command, and `finish`, waits for it) but started only
   * after this turn's I/O callbacks, so what the caller sends in this turn goes out first.
   */
  execute(
    make: (state: State) => Command,
    options: { afterIo?: boolean } = {},
  ): Promise<ToolledgerEvent[]> {
    return this.#serialised(options.afterIo === true, async () => {
      for (let attempt = 0; ; attempt++) {
        const view = this.#view(this.state);
        const made = { ...make(view), at: this.#now().toISOString() } as Command;
        // R6: no secret enters an event, whatever text a server put in the command.
        const redactor = this.#redactor();
        const command = redactor ? redactCommand(made, redactor) : made;
        const decision = decide(view, command);
        if (!decision.ok)
          throw new AdapterError(
            "COMMAND_REJECTED",
            `${decision.error.code}: ${decision.error.message}`,
          );
        if (decision.events.length === 0) return [];
        const batch = decision.events.map((event) => ({ eventId: randomUUID(), event }));
        const result = await this.store.append(this.streamId, batch, this.#version);
        if (result.ok) {
          const first = this.#version + 1;
          this.#version = result.nextExpectedVersion;
          batch.forEach(({ eventId, event }, i) => {
            this.#fold({
              streamId: this.streamId,
              streamPosition: first + i,
              globalPosition: result.firstGlobalPosition + i,
              eventId,
              event,
            });
          });
          return decision.events;
        }
        if (result.error.code === "VERSION_CONFLICT" && attempt < CONFLICT_RETRIES) {
          await this.#catchUp();
          continue;
        }
        const detail =
          result.error.code === "VERSION_CONFLICT"
            ? `stream ${this.streamId} kept moving (another writer appends to it); ${command.type} was not recorded`
            : result.error.message;
        throw new AdapterError(
          "APPEND_REJECTED",
          `the event store refused ${command.type}: ${result.error.code}: ${detail}`,
        );
      }
    });
  }

  /**
   * C3: folds events another process appended to this stream since the last one this writer
   * knows. Returns how many arrived.
   */
  catchUp(): Promise<number> {
    return this.#serialised(false, () => this.#catchUp());
  }

  /** Stops accepting commands once the queued ones are done. */
  async finish(): Promise<void> {
    await this.#queue;
    this.#finished = true;
    this.#events.complete();
  }

  async #catchUp(): Promise<number> {
    let arrived = 0;
    for (;;) {
      const batch = await this.store.readStream(this.streamId, {
        fromPosition: this.#version + 1,
        maxCount: 1000,
      });
      for (const stored of batch) {
        this.#version = stored.streamPosition;
        this.#fold({
          streamId: stored.streamId,
          streamPosition: stored.streamPosition,
          globalPosition: stored.globalPosition,
          eventId: stored.eventId,
          event: stored.event,
          external: true,
        });
      }
      arrived += batch.length;
      if (batch.length < 1000) return arrived;
    }
  }

  #fold(e: SessionEvent): void {
    this.#state.next(evolve(this.state, e.event));
    this.#events.next(e);
  }

  #serialised<T>(afterIo: boolean, work: () => Promise<T>): Promise<T> {
    // An idle writer starts at once (a live host's usual case); a busy one queues behind the last command.
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

  #start<T>(work: () => Promise<T>): Promise<T> {
    if (this.#finished)
      return Promise.reject(new AdapterError("SESSION_CLOSED", "the session is closed"));
    return work();
  }

  readonly #done = (): void => {
    this.#busy--;
  };
}
