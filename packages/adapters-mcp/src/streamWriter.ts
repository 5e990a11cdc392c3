import {
  type Command,
  type Decision,
  decide,
  type EventStore,
  evolve,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import { BehaviorSubject, type Observable, Subject } from "rxjs";
import { redactCommand } from "./_redactCommand.js";
import { AdapterError } from "./adapterError.js";
import { appendGate } from "./appendGate.js";
import { loadStream } from "./loadStream.js";
import { newEventId } from "./newEventId.js";
import type { Redactor } from "./redactor.js";
import type { SessionEvent } from "./sessionEvent.js";
import {
  type BehindEvent,
  WriteBehindQueue,
  type WriteBehindReport,
  type WriteBehindSettings,
} from "./writeBehindQueue.js";

export type { SessionEvent } from "./sessionEvent.js";

export interface StreamWriterOptions {
  now: () => Date;
  /** The state a command is decided against (a conversation composes the registry in). */
  view?: (own: State) => State;
  /** The secrets no command may carry into an event (servers' text reaches commands). */
  redactor?: () => Redactor;
  /** C4: how events written behind are grouped, held and reported (see `writeBehind`). */
  writeBehind?: Partial<WriteBehindSettings> & { onReport?: (report: WriteBehindReport) => void };
  /**
   * L2 across streams (see `AppendGate`): `shared` for a stream decided against another one
   * (a conversation reads the registry), `exclusive` for the stream it reads (the registry).
   */
  gate?: "shared" | "exclusive";
  /**
   * L2: the version of the stream `view` composes in (the registry's): a decision written ahead
   * is decided again when it moved before the decision's record was appended.
   */
  follows?: () => number;
}

/** Resolves after the I/O callbacks of the current event-loop turn. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** L1: a decision written ahead, waiting for its events to be stored. */
interface AheadEntry {
  make: (state: State) => Command;
  decision: Decision;
  /** The version of the stream `view` composes in, when it was decided. */
  followed: number;
  /** How many of other writers' events the writer had folded when it was decided. */
  foreign: number;
  events: BehindEvent[];
  resolve: (decision: Decision) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout | null;
}

function aheadEvents(entry: AheadEntry, decision: Decision): BehindEvent[] {
  if (!decision.ok) return [];
  return decision.events.map((event) => ({ eventId: newEventId(), event, ahead: entry }));
}

/**
 * How many times an append that lost a race to another writer is decided again (each after
 * folding what the other appended: a busy outside writer can win a few races in a row).
 */
const CONFLICT_RETRIES = 50;

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
  readonly events$: Observable<SessionEvent>;
  /** The stream's own fold (for a conversation: without the registry part). */
  readonly state$: Observable<State>;

  readonly #events = new Subject<SessionEvent>();
  readonly #state: BehaviorSubject<State>;
  readonly #now: () => Date;
  readonly #view: (own: State) => State;
  readonly #redactor: () => Redactor | null;
  readonly #behind: WriteBehindQueue;
  readonly #gate: (() => Promise<() => void>) | null;
  readonly #follows: () => number;
  #version: number;
  #queue: Promise<unknown> = Promise.resolve();
  /** Commands queued or running. */
  #busy = 0;
  /** Commands (not group commits) queued or running, and the last of them: a decision waits for them. */
  #deciding = 0;
  #lastCommand: Promise<unknown> = Promise.resolve();
  #finished = false;

  constructor(
    store: EventStore,
    streamId: string,
    seed: State,
    version: number,
    options: StreamWriterOptions,
  ) {
    this.store = store;
    this.streamId = streamId;
    this.#version = version;
    this.#now = options.now;
    this.#view = options.view ?? ((own) => own);
    this.#redactor = options.redactor ?? (() => null);
    this.#state = new BehaviorSubject(seed);
    const gate = options.gate === undefined ? null : appendGate(store);
    this.#gate = !gate
      ? null
      : options.gate === "exclusive"
        ? () => gate.exclusive()
        : () => gate.shared();
    this.#follows = options.follows ?? (() => 0);
    this.events$ = this.#events.asObservable();
    this.state$ = this.#state.asObservable();
    const onReport = options.writeBehind?.onReport;
    this.#behind = new WriteBehindQueue(
      options.writeBehind ?? {},
      (report) => {
        // Lost for good: whoever waits on a decision written ahead among them hears why.
        if (report.kind === "lost") this.#rejectAhead(report.events, report.error);
        onReport?.(report);
      },
      { commit: (through) => this.#serialised(false, () => this.#commitBehind(through)) },
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
    return this.#state.value;
  }

  /** The stream's version (its last position) as this writer knows it. */
  get version(): number {
    return this.#version;
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
    const done = this.#serialised(options.afterIo === true, async () => {
      // Whatever was written behind goes first: the log keeps the order things were decided in
      // (checked again after each append's await, right before this command is decided).
      do await this.#commitBehind();
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
          result = await this.store.append(this.streamId, batch, this.#version);
          if (result.ok)
            this.#stored(batch, result.nextExpectedVersion, result.firstGlobalPosition);
        } finally {
          release?.();
        }
        if (result.ok) return decision;
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
    if (this.#finished)
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
      const entry: AheadEntry = {
        make,
        decision,
        followed: this.#follows(),
        foreign: this.#foreign,
        events: [],
        resolve,
        reject,
        timer: null,
      };
      entry.events = aheadEvents(entry, decision);
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

  /** A group refused for good: the callers of its decisions written ahead get the refusal. */
  #rejectAhead(group: readonly BehindEvent[], error: Error): void {
    for (const { ahead } of group) {
      if (ahead === undefined) continue;
      const entry = ahead as AheadEntry;
      if (entry.timer) clearTimeout(entry.timer);
      entry.reject(error);
    }
  }

  /**
   * Whether a decision written ahead in `group` was made against a state that has moved since:
   * another writer's events were folded into this stream (a catch-up, between the decision and
   * this append), or the stream `view` composes in moved.
   */
  #decidedOnStale(group: readonly BehindEvent[]): boolean {
    const followed = this.#follows();
    for (const { ahead } of group) {
      if (ahead === undefined) continue;
      const entry = ahead as AheadEntry;
      if (entry.followed !== followed || entry.foreign !== this.#foreign) return true;
    }
    return false;
  }

  /** How many events of other writers this writer has folded (catch-ups). */
  #foreign = 0;

  /** Tells the callers of a stored group's decisions written ahead. */
  #settleAhead(group: readonly BehindEvent[]): void {
    let last: object | undefined;
    for (const { ahead } of group) {
      if (ahead === undefined || ahead === last) continue;
      last = ahead;
      const entry = ahead as AheadEntry;
      if (entry.timer) clearTimeout(entry.timer);
      entry.resolve(entry.decision);
    }
  }

  /**
   * L2: another writer moved the stream before `group` was stored: each decision written ahead
   * in it is made again against the stream as it is now (none of them went anywhere yet);
   * events written behind stay as they were (what they record already happened).
   */
  #redecide(group: readonly BehindEvent[]): void {
    const events: BehindEvent[] = [];
    let last: object | undefined;
    for (const e of group) {
      if (e.ahead === undefined) {
        events.push(e);
        continue;
      }
      if (e.ahead === last) continue;
      last = e.ahead;
      const entry = e.ahead as AheadEntry;
      let decision: Decision;
      try {
        decision = this.#decide(entry.make).decision;
      } catch (error) {
        entry.reject(error);
        continue;
      }
      entry.decision = decision;
      entry.followed = this.#follows();
      entry.foreign = this.#foreign;
      if (!decision.ok || decision.events.length === 0) {
        if (entry.timer) clearTimeout(entry.timer);
        entry.resolve(decision);
        continue;
      }
      entry.events = aheadEvents(entry, decision);
      events.push(...entry.events);
    }
    this.#behind.rewrite(group, events);
  }

  #decideBehind(make: (state: State) => Command, options: { bounded?: boolean }): Decision {
    if (this.#finished)
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
    return this.#serialised(false, () => this.#commitBehind());
  }

  /**
   * C3: folds events another process appended to this stream since the last one this writer
   * knows. Returns how many arrived.
   */
  catchUp(): Promise<number> {
    return this.#serialised(false, () => this.#catchUp());
  }

  /**
   * Stops accepting commands once the queued ones are done. Events written behind are
   * stored first; while the store refuses them they are retried for up to `waitMs`, then
   * reported lost (C4).
   */
  async finish(options: { waitMs?: number } = {}): Promise<void> {
    this.#decideDeferred();
    await this.#queue.catch(() => undefined);
    await this.#behind.drain(options.waitMs ?? this.#behind.settings.closeWaitMs);
    this.#finished = true;
    this.#events.complete();
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

  /**
   * Appends the groups written behind, oldest first, through `through` (by default all);
   * throws (and keeps them) while the store fails.
   */
  async #commitBehind(through?: readonly BehindEvent[]): Promise<void> {
    // `through` may be stored already (by a command, or by the commit it waited behind).
    while (through === undefined || this.#behind.holds(through)) {
      const group = this.#behind.next();
      if (!group) return;
      const refusal = await this.#appendDecided(group);
      if (refusal) this.#behind.refused(group, refusal);
      else {
        this.#behind.stored(group);
        this.#settleAhead(group);
      }
      if (group === through) return;
    }
  }

  /**
   * Appends events already decided (and acted on): a conflict folds the others' events and
   * appends them as they are, never decided again. Returns the store's refusal of them for
   * good; a failure of the store itself is thrown.
   */
  async #appendDecided(group: readonly BehindEvent[]): Promise<AdapterError | null> {
    for (let attempt = 0; ; attempt++) {
      const release = this.#gate ? await this.#gate() : null;
      let result: Awaited<ReturnType<EventStore["append"]>>;
      try {
        // L2: the stream or the registry moved since a decision written ahead was made: made
        // again first (its expected version would not catch a move already folded).
        if (this.#decidedOnStale(group)) {
          this.#redecide(group);
          if (group.length === 0) return null;
        }
        result = await this.store.append(this.streamId, group, this.#version);
        // Stored by an earlier attempt whose answer was lost, and folded since by a catch-up.
        if (result.ok && result.nextExpectedVersion > this.#version)
          this.#stored(group, result.nextExpectedVersion, result.firstGlobalPosition, true);
      } finally {
        release?.();
      }
      if (result.ok) return null;
      if (result.error.code === "VERSION_CONFLICT") {
        if (attempt < CONFLICT_RETRIES) {
          await this.#catchUp();
          // L2: what was decided ahead of its record is decided again after the others' events.
          if (group.some((e) => e.ahead !== undefined)) {
            this.#redecide(group);
            if (group.length === 0) return null;
          }
          continue;
        }
        // Retried later, like a store that is away.
        throw new AdapterError(
          "APPEND_REJECTED",
          `stream ${this.streamId} kept moving (another writer appends to it)`,
        );
      }
      return new AdapterError(
        "APPEND_REJECTED",
        `the event store refused ${group.length} event(s): ${result.error.code}: ${result.error.message}`,
      );
    }
  }

  /**
   * Folds a stored batch. A group of call events (`oneState`) is folded into one new state
   * before its events are told: nothing decides between them, and every state emitted is
   * work for each view of the stream (the gateway's served list, per event).
   */
  #stored(
    batch: readonly BehindEvent[],
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

  async #catchUp(): Promise<number> {
    let arrived = 0;
    for (;;) {
      const batch = await this.store.readStream(this.streamId, {
        fromPosition: this.#version + 1,
        maxCount: 1000,
      });
      for (const stored of batch) {
        this.#version = stored.streamPosition;
        // Our own group, stored by an attempt whose answer was lost: ours, not another process's.
        const ours = this.#behind.claim(stored.eventId);
        if (!ours) this.#foreign++;
        this.#fold({
          streamId: stored.streamId,
          streamPosition: stored.streamPosition,
          globalPosition: stored.globalPosition,
          eventId: stored.eventId,
          event: stored.event,
          ...(ours ? {} : { external: true }),
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
