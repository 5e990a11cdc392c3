import {
  type Command,
  type Decision,
  decide,
  type EventStore,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import type { Observable } from "rxjs";
import { AdapterError } from "../adapterError.js";
import { redactCommand } from "../redaction/redactCommand.js";
import type { Redactor } from "../redaction/redactor.js";
import { type AheadContext, type AheadEntry, newAheadEntry, rejectAll } from "./aheadEntries.js";
import { appendGate } from "./appendGate.js";
import { CONFLICT_RETRIES, commitGroups, type GroupCommit } from "./commitGroups.js";
import { loadStream } from "./loadStream.js";
import { newEventId } from "./newEventId.js";
import { SerialWork } from "./serialWork.js";
import type { StreamEvent } from "./streamEvent.js";
import { StreamFold } from "./streamFold.js";
import type { StreamWriterOptions } from "./streamWriterOptions.js";
import { type BehindEvent, WriteBehindQueue } from "./writeBehindQueue.js";

export type { StreamEvent } from "./streamEvent.js";
export type { StreamWriterOptions } from "./streamWriterOptions.js";

/**
 * The one writer of a stream in this process: decides each command against the state at
 * the moment it runs (appends are serialised), appends with the exact expected version and
 * folds what was stored. When another process appended in between (VERSION_CONFLICT), it
 * folds their events first and decides again, so nobody's event is lost or overwritten.
 * Events written behind (`writeBehind`, C4's call events) are decided at once and appended
 * in order, in groups, before anything appended after them.
 */
export class StreamWriter {
  readonly store: EventStore;
  readonly streamId: string;
  readonly events$: Observable<StreamEvent>;
  /** The stream's own fold (for a conversation: without the registry part). */
  readonly state$: Observable<State>;

  readonly #fold: StreamFold;
  readonly #now: () => Date;
  readonly #view: (own: State) => State;
  readonly #redactor: () => Redactor | null;
  readonly #behind: WriteBehindQueue;
  readonly #gate: (() => Promise<() => void>) | null;
  readonly #follows: () => number;
  readonly #work = new SerialWork();
  /** Commands (not group commits) queued or running, and the last of them: a decision waits for them. */
  #deciding = 0;
  #lastCommand: Promise<unknown> = Promise.resolve();

  constructor(
    store: EventStore,
    streamId: string,
    seed: State,
    version: number,
    options: StreamWriterOptions,
  ) {
    this.store = store;
    this.streamId = streamId;
    this.#now = options.now;
    this.#view = options.view ?? ((own) => own);
    this.#redactor = options.redactor ?? (() => null);
    this.#fold = new StreamFold(streamId, seed, version);
    const gate = options.gate === undefined ? null : appendGate(store);
    this.#gate = !gate
      ? null
      : options.gate === "exclusive"
        ? () => gate.exclusive()
        : () => gate.shared();
    this.#follows = options.follows ?? (() => 0);
    this.events$ = this.#fold.events$;
    this.state$ = this.#fold.state$;
    const onReport = options.writeBehind?.onReport;
    this.#behind = new WriteBehindQueue(
      options.writeBehind ?? {},
      (report) => {
        // Lost for good: whoever waits on a decision written ahead among them hears why.
        if (report.kind === "lost") rejectAll(report.events, report.error);
        onReport?.(report);
      },
      { commit: (through) => this.#work.run(false, () => commitGroups(this.#groups, through)) },
    );
  }

  /** Reads a stream's whole history and folds it over `seed`. */
  static load(
    store: EventStore,
    streamId: string,
    seed: State,
  ): Promise<{ state: State; version: number; events: ToolledgerEvent[] }> {
    return loadStream(store, streamId, seed);
  }

  get state(): State {
    return this.#fold.state;
  }

  /** The stream's version (its last position) as this writer knows it. */
  get version(): number {
    return this.#fold.version;
  }

  /** C4: the most events written behind kept while the store refuses them. */
  get maxHeld(): number {
    return this.#behind.settings.maxHeld;
  }

  /** L1: how long a decision written ahead waits for a store that refuses it. */
  get aheadWaitMs(): number {
    return this.#behind.settings.aheadWaitMs;
  }

  /** C4: how long `finish` retries held events before it reports them lost. */
  get closeWaitMs(): number {
    return this.#behind.settings.closeWaitMs;
  }

  /** Events written behind and not stored yet (waiting for their group, or held while the store refuses them). */
  get behind(): number {
    return this.#behind.size;
  }

  /**
   * E4: decides `make(state)` against the current state, appends and folds. The decision is
   * returned as `decide` made it: a rejection is a value, and nothing is appended for it.
   * `afterIo`: queued now (every later command, and `finish`, waits for it) but started only
   * after this turn's I/O callbacks, so what the caller sends in this turn goes out first.
   */
  run(make: (state: State) => Command, options: { afterIo?: boolean } = {}): Promise<Decision> {
    this.#decideDeferred();
    this.#deciding++;
    const done = this.#work.run(options.afterIo === true, async () => {
      // Whatever was written behind goes first: the log keeps the order things were decided in
      // (checked again after each append's await, right before this command is decided).
      do await commitGroups(this.#groups);
      while (this.#behind.size > 0);
      for (let attempt = 0; ; attempt++) {
        // L2: nothing another stream of this process appends lands between decision and record.
        const release = this.#gate ? await this.#gate() : null;
        let command: Command;
        let decision: Decision;
        let result: Awaited<ReturnType<EventStore["append"]>>;
        let batch: BehindEvent[];
        try {
          ({ command, decision } = this.#decide(make));
          if (!decision.ok || decision.events.length === 0) return decision;
          batch = decision.events.map((event) => ({ eventId: newEventId(), event }));
          result = await this.store.append(this.streamId, batch, this.#fold.version);
          if (result.ok)
            this.#fold.stored(batch, result.nextExpectedVersion, result.firstGlobalPosition);
        } finally {
          release?.();
        }
        if (result.ok) return decision;
        if (result.error.code === "VERSION_CONFLICT" && attempt < CONFLICT_RETRIES) {
          await this.#fold.catchUp(this.store, (id) => this.#behind.claim(id));
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
    const settled = done.then(
      () => this.#deciding--,
      () => this.#deciding--,
    );
    this.#lastCommand = settled;
    return done;
  }

  /** As `run`, with a rejection thrown as COMMAND_REJECTED (for callers that never expect one). */
  async execute(
    make: (state: State) => Command,
    options: { afterIo?: boolean } = {},
  ): Promise<ToolledgerEvent[]> {
    const decision = await this.run(make, options);
    if (!decision.ok)
      throw new AdapterError(
        "COMMAND_REJECTED",
        `${decision.error.code}: ${decision.error.message}`,
      );
    return decision.events;
  }

  /**
   * C4, written behind: decides `make(state)` now (after any command queued before it) and
   * returns the decision without waiting for the store. Its events are appended in order,
   * grouped with the others decided within the commit window, before any later command's.
   * A group the store refuses is held, retried with the same event ids, and reported; with
   * `bounded`, a new decision is refused (APPEND_REJECTED) while the held events fill the bound.
   */
  writeBehind(
    make: (state: State) => Command,
    options: { bounded?: boolean } = {},
  ): Promise<Decision> {
    this.#decideDeferred();
    if (this.#deciding === 0) {
      try {
        return Promise.resolve(this.#decideBehind(make, options));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.#lastCommand.then(() => this.#decideBehind(make, options));
  }

  /**
   * `writeBehind` decided within this call when no command is queued before it (a live
   * gateway's usual case), so the caller goes on in the same turn: null when it must wait
   * its turn (then `writeBehind`). Throws what `writeBehind` would reject with.
   */
  writeBehindNow(
    make: (state: State) => Command,
    options: { bounded?: boolean } = {},
  ): Decision | null {
    this.#decideDeferred();
    return this.#deciding === 0 ? this.#decideBehind(make, options) : null;
  }

  /**
   * L1, written ahead: decides `make(state)` now (after any command queued before it) and
   * resolves once its events are durable, sharing a group commit with whatever else was
   * decided meanwhile (the first commits at once: no window). When another writer moved the
   * stream first (L2), the decision is made again against the stream as it now is, and that
   * decision is what is stored and returned. While the store refuses, it waits (held and
   * retried as events written behind are); after `waitMs` it rejects (APPEND_REJECTED) and
   * its events are withdrawn, or, when an attempt to store them has begun, followed by
   * `late()`'s command (written behind), so the log says what became of it.
   */
  writeAhead(
    make: (state: State) => Command,
    options: {
      bounded?: boolean;
      waitMs?: number;
      late?: (decision: Decision) => Command | null;
    } = {},
  ): Promise<Decision> {
    this.#decideDeferred();
    if (this.#deciding === 0) return this.#decideAhead(make, options);
    return this.#lastCommand.then(() => this.#decideAhead(make, options));
  }

  #decideAhead(
    make: (state: State) => Command,
    options: { bounded?: boolean; waitMs?: number; late?: (decision: Decision) => Command | null },
  ): Promise<Decision> {
    if (this.#work.closed)
      return Promise.reject(
        new AdapterError("SESSION_CLOSED", `stream ${this.streamId} is closed`),
      );
    try {
      if (options.bounded) this.#behind.checkRoom(this.streamId);
    } catch (error) {
      return Promise.reject(error);
    }
    const { decision } = this.#decide(make);
    if (!decision.ok || decision.events.length === 0) return Promise.resolve(decision);
    return new Promise<Decision>((resolve, reject) => {
      const entry = newAheadEntry(make, decision, this.#ahead, resolve, reject);
      this.#behind.add(entry.events, true);
      if (options.waitMs === undefined) return;
      entry.timer = setTimeout(() => {
        entry.timer = null;
        this.#abandon(entry, options.late);
      }, options.waitMs);
    });
  }

  /** L1: a decision written ahead that the store did not take in time. */
  #abandon(entry: AheadEntry, late: ((decision: Decision) => Command | null) | undefined): void {
    const settle = entry.reject;
    entry.resolve = entry.reject = () => {};
    const error = new AdapterError(
      "APPEND_REJECTED",
      `the event store did not store it within ${this.#behind.settings.aheadWaitMs} ms${this.#behind.failure ? ` (${this.#behind.failure.message})` : ""}`,
    );
    const after = this.#behind.withdraw(entry.events) ? null : (late?.(entry.decision) ?? null);
    // Its record may be stored yet: what became of it follows it (a failure is the store's, reported).
    if (after) void this.writeBehind(() => after).catch(() => undefined);
    settle(error);
  }

  /** What the queued groups are committed with (see commitGroups.ts). */
  get #groups(): GroupCommit {
    return {
      store: this.store,
      streamId: this.streamId,
      fold: this.#fold,
      queue: this.#behind,
      ahead: this.#ahead,
      gate: this.#gate,
    };
  }

  /** What a decision written ahead is decided with (see aheadEntries.ts). */
  readonly #ahead: AheadContext = {
    decide: (make) => this.#decide(make).decision,
    followed: () => this.#follows(),
    foreign: () => this.#fold.foreign,
  };

  #decideBehind(make: (state: State) => Command, options: { bounded?: boolean }): Decision {
    if (this.#work.closed)
      throw new AdapterError("SESSION_CLOSED", `stream ${this.streamId} is closed`);
    if (options.bounded) this.#behind.checkRoom(this.streamId);
    const { decision } = this.#decide(make);
    if (decision.ok && decision.events.length > 0)
      this.#behind.add(decision.events.map((event) => ({ eventId: newEventId(), event })));
    return decision;
  }

  /**
   * As `writeBehind`, decided after this turn's I/O (what the caller sends in this turn, such
   * as the answer to a call, goes out first) or right before this writer's next decision,
   * whichever comes first: nothing else is decided in between.
   */
  writeBehindAfterIo(make: (state: State) => Command): Promise<Decision> {
    return new Promise<Decision>((resolve, reject) => {
      this.#deferred.push(() => this.writeBehind(make).then(resolve, reject));
      if (this.#deferred.length === 1) setImmediate(this.#decideDeferred);
    });
  }

  /** Decisions `writeBehindAfterIo` deferred, in order. */
  #deferred: (() => void)[] = [];

  readonly #decideDeferred = (): void => {
    if (this.#deferred.length === 0) return;
    const deferred = this.#deferred;
    this.#deferred = [];
    for (const decide of deferred) decide();
  };

  /**
   * Resolves once every event written behind so far (deferred decisions decided first) is
   * stored; throws the store's failure.
   */
  flush(): Promise<void> {
    this.#decideDeferred();
    return this.#work.run(false, () => commitGroups(this.#groups));
  }

  /**
   * C3: folds events another process appended to this stream since the last one this writer
   * knows. Returns how many arrived.
   */
  catchUp(): Promise<number> {
    return this.#work.run(false, () =>
      this.#fold.catchUp(this.store, (id) => this.#behind.claim(id)),
    );
  }

  /**
   * Stops accepting commands once the queued ones are done. Events written behind are
   * stored first; while the store refuses them they are retried for up to `waitMs`, then
   * reported lost (C4).
   */
  async finish(options: { waitMs?: number } = {}): Promise<void> {
    this.#decideDeferred();
    await this.#behind.drain(options.waitMs ?? this.#behind.settings.closeWaitMs);
    await this.#work.close();
    this.#fold.complete();
  }

  #decide(make: (state: State) => Command): { command: Command; decision: Decision } {
    const view = this.#view(this.state);
    const made = { ...make(view), at: this.#isoNow() } as Command;
    // R6: no secret enters an event, whatever text a server put in the command.
    const redactor = this.#redactor();
    const command = redactor ? redactCommand(made, redactor) : made;
    return { command, decision: decide(view, command) };
  }

  /** The clock as ISO text, formatted once per millisecond (two commands per call read it). */
  #isoNow(): string {
    const ms = this.#now().getTime();
    if (ms !== this.#iso.ms) this.#iso = { ms, text: new Date(ms).toISOString() };
    return this.#iso.text;
  }

  #iso = { ms: Number.NaN, text: "" };
}
