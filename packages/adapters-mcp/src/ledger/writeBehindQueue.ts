import type { ToolledgerEvent } from "@toolledger/core";
import { AdapterError } from "../adapterError.js";

/** An event decided and waiting to be appended, with the id every attempt appends it under. */
export interface BehindEvent {
  eventId: string;
  event: ToolledgerEvent;
  /**
   * L1: set on the events of a decision written ahead (its caller waits until they are
   * stored): the writer decides it again when another writer moved the stream first.
   */
  ahead?: object;
}

export interface WriteBehindSettings {
  /** Longest an event waits for its group to be committed, in ms (C4: what a crash may lose). */
  commitWindowMs: number;
  /** Most events kept while the store refuses them; a bounded decision is refused beyond. */
  maxHeld: number;
  /** How long the writer's `finish` keeps retrying held events before it reports them lost, in ms. */
  closeWaitMs: number;
  /**
   * L1: how long a call waits for its start to be stored while the store refuses it, in ms;
   * then it is refused, not made.
   */
  aheadWaitMs: number;
}

/** C4: what happened to events written behind, for whoever tells the user. */
export type WriteBehindReport =
  /** The store refused a group: it is kept and retried (`events` are waiting now). */
  | { kind: "held"; events: number; error: Error }
  /** The store is back: what was held is stored. */
  | { kind: "stored"; events: number; heldMs: number }
  /** Given up (the store stayed away until the writer finished, or refused them for good). */
  | { kind: "lost"; events: BehindEvent[]; error: Error };

export const DEFAULT_WRITE_BEHIND: WriteBehindSettings = {
  commitWindowMs: 10,
  maxHeld: 1000,
  closeWaitMs: 5000,
  aheadWaitMs: 10_000,
};

/** Events per group: a group is appended as one batch (and retried exactly as it was). */
const GROUP_MAX = 500;
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2000;
/**
 * The window is at least this many times the store's last commit time, so committing takes
 * at most a twentieth of the process's time (a synchronous store's fsync holds its event loop:
 * SQLite syncing every 10 ms to a disk that takes 2 ms held it a sixth of the time, bench 5a).
 */
const WINDOW_PER_COMMIT = 20;
const WINDOW_MAX_MS = 500;

/**
 * The events a stream writer decided and has not stored yet, in groups (group commit). Events
 * written ahead (L1: a caller waits for them) are committed at once, after this turn's I/O
 * (so what arrived in the same turn shares the commit), or right after the commit in flight
 * with everything decided meanwhile: no waiting window. Events only written behind wait for
 * the window (`commitWindowMs`, or twenty times the store's last commit
 * time when that is longer, at most 0.5 s) after the first event is committed at once. A
 * group the store refused is kept as it was (its ids make the retry idempotent) and retried
 * with backoff; events decided meanwhile wait behind it, in order. The queue only
 * schedules: `commit` (the writer's) appends the groups, through `next` and `stored`.
 */
export class WriteBehindQueue {
  readonly settings: WriteBehindSettings;
  readonly #report: (report: WriteBehindReport) => void;
  /** Appends the groups, oldest first, through the one given (by default all). */
  readonly #commit: (through?: readonly BehindEvent[]) => Promise<void>;
  readonly #groups: BehindEvent[][] = [];
  /** The first group has been handed to the writer: it is appended exactly as it is. */
  #sealed = false;
  #size = 0;
  #timer: NodeJS.Timeout | null = null;
  /** Since when the store refuses, the error, and how long the next retry waits. */
  #failing: { since: number; error: Error; retryMs: number } | null = null;
  #draining = false;

  constructor(
    settings: Partial<WriteBehindSettings>,
    report: ((report: WriteBehindReport) => void) | undefined,
    writer: { commit: (through?: readonly BehindEvent[]) => Promise<void> },
  ) {
    this.settings = { ...DEFAULT_WRITE_BEHIND, ...definedOnly(settings) };
    this.#report = report ?? (() => {});
    this.#commit = writer.commit;
  }

  /** The store's failure while it refuses the groups, else null. */
  get failure(): Error | null {
    return this.#failing?.error ?? null;
  }

  /** Events waiting (in their group window, or held while the store refuses them). */
  get size(): number {
    return this.#size;
  }

  /** Throws when no more may be held: the store refuses and the bound is full. */
  checkRoom(streamId: string): void {
    if (this.#size < this.settings.maxHeld || !this.#failing) return;
    throw new AdapterError(
      "APPEND_REJECTED",
      `stream ${streamId} holds ${this.#size} call event(s) the event store has not taken since ${new Date(this.#failing.since).toISOString()} (${this.#failing.error.message}); no new call is made until it takes them`,
      { cause: this.#failing.error },
    );
  }

  /** Queues `events`; `now`: they are written ahead, committed without waiting for a window. */
  add(events: BehindEvent[], now = false): void {
    const last = this.#groups.at(-1);
    const open = last && !(this.#groups.length === 1 && this.#sealed) && last.length < GROUP_MAX;
    if (open) last.push(...events);
    else this.#groups.push([...events]);
    this.#size += events.length;
    if (this.#failing || this.#draining) return;
    if (now) this.#scheduleNow();
    else this.#schedule(this.#window());
  }

  /**
   * Replaces what `group` holds (the writer decided its events written ahead again after
   * another writer moved the stream). Only the sealed first group is rewritten: no attempt
   * of it was stored (the store said so), so new ids are safe.
   */
  rewrite(group: readonly BehindEvent[], events: readonly BehindEvent[]): void {
    const g = group as BehindEvent[];
    if (!this.#groups.includes(g)) return;
    this.#size += events.length - g.length;
    g.splice(0, g.length, ...events);
    if (g.length === 0) this.stored(g);
  }

  /**
   * Takes `events` out of the queue when no attempt to append them has begun; false when
   * their group is being appended (or was), so they may be stored yet.
   */
  withdraw(events: readonly BehindEvent[]): boolean {
    const ids = new Set(events.map((e) => e.eventId));
    for (const [i, g] of this.#groups.entries()) {
      if (!g.some((e) => ids.has(e.eventId))) continue;
      if (i === 0 && this.#sealed) return false;
      const kept = g.filter((e) => !ids.has(e.eventId));
      this.#size -= g.length - kept.length;
      g.splice(0, g.length, ...kept);
      if (g.length === 0) this.#groups.splice(i, 1);
      if (this.#size === 0) this.#recovered();
      return true;
    }
    return false;
  }

  /** How long the next group waits for more events (see the class). */
  #window(): number {
    const scaled = Math.min(WINDOW_MAX_MS, WINDOW_PER_COMMIT * this.#lastCommitMs);
    return Math.max(this.settings.commitWindowMs, scaled);
  }

  /** How long the last scheduled commit took, in ms. */
  #lastCommitMs = 0;

  /** Whether `group` still waits to be stored. */
  holds(group: readonly BehindEvent[]): boolean {
    return this.#groups.includes(group as BehindEvent[]);
  }

  /** The oldest group, sealed: the writer appends it, then calls `stored`. */
  next(): readonly BehindEvent[] | undefined {
    const first = this.#groups[0];
    if (first) this.#sealed = true;
    return first;
  }

  stored(group: readonly BehindEvent[]): void {
    if (this.#groups[0] !== group) return;
    this.#groups.shift();
    this.#sealed = false;
    this.#size -= group.length;
    if (this.#failing) this.#storedSinceFailure += group.length;
    // Stored by whichever append came first (a group commit, or a command that had to wait).
    if (this.#size === 0) this.#recovered();
  }

  /** Refused for good (not a failure of the store): dropped, and reported lost. */
  refused(group: readonly BehindEvent[], error: Error): void {
    this.stored(group);
    this.#report({ kind: "lost", events: [...group], error });
  }

  /** True when `eventId` is in the group being appended (a catch-up found it stored). */
  claim(eventId: string): boolean {
    return this.#sealed && (this.#groups[0]?.some((e) => e.eventId === eventId) ?? false);
  }

  /**
   * Commits until nothing is left; while the store refuses, retries for up to `waitMs`,
   * then reports what is left as lost and forgets it. No group is scheduled after this.
   */
  async drain(waitMs: number): Promise<void> {
    this.#draining = true;
    this.#cancel();
    const deadline = Date.now() + waitMs;
    let error: Error | null = null;
    for (let wait = RETRY_FIRST_MS; this.#size > 0; wait = Math.min(wait * 2, RETRY_MAX_MS)) {
      try {
        await this.#commit();
        this.#recovered();
      } catch (e) {
        error = e instanceof Error ? e : new Error(String(e));
        const left = deadline - Date.now();
        if (left <= 0) break;
        await new Promise((resolve) => setTimeout(resolve, Math.min(wait, left)));
      }
    }
    if (this.#size === 0) return;
    const lost = this.#groups.flat();
    this.#groups.length = 0;
    this.#size = 0;
    this.#sealed = false;
    this.#report({
      kind: "lost",
      events: lost,
      error: error ?? this.#failing?.error ?? new Error("the event store did not take them"),
    });
  }

  /** A commit right after this turn's I/O: no window, for events a caller waits on. */
  #scheduleNow(): void {
    if (this.#immediate) return;
    this.#cancel();
    this.#immediate = setImmediate(() => {
      this.#immediate = null;
      if (this.#groups.length === 0) return;
      // Everything queued by now, in order; what is decided while it commits shares the next.
      this.#commit(this.#groups.at(-1)).then(
        () => this.#recovered(),
        (error: unknown) => this.#failed(error instanceof Error ? error : new Error(String(error))),
      );
    });
  }

  #immediate: NodeJS.Immediate | null = null;

  #schedule(ms: number): void {
    if (this.#timer || this.#immediate) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      // Stored meanwhile (a command commits the queue first): the next event starts a window.
      if (this.#groups.length === 0) return;
      const started = performance.now();
      // Only the groups whose window has passed: a group begun while this commit runs waits
      // for its own window (with a store that commits asynchronously, committing it at once
      // would turn the group commit into back-to-back commits of a few events each).
      this.#commit(this.#groups.at(-1)).then(
        () => {
          this.#lastCommitMs = performance.now() - started;
          this.#recovered();
        },
        (error: unknown) => this.#failed(error instanceof Error ? error : new Error(String(error))),
      );
    }, ms);
  }

  #cancel(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** Whether a group still waiting holds events written ahead. */
  #aheadWaiting(): boolean {
    return this.#groups.some((g) => g.some((e) => e.ahead !== undefined));
  }

  #recovered(): void {
    const failing = this.#failing;
    if (!failing) return;
    this.#failing = null;
    if (!this.#draining) this.#cancel();
    const events = this.#storedSinceFailure;
    this.#storedSinceFailure = 0;
    this.#report({ kind: "stored", events, heldMs: Date.now() - failing.since });
    if (this.#size > 0 && !this.#draining) {
      if (this.#aheadWaiting()) this.#scheduleNow();
      else this.#schedule(this.#window());
    }
  }

  /** Events stored since the store began refusing: what the "stored" report counts. */
  #storedSinceFailure = 0;

  #failed(error: Error): void {
    if (this.#draining) return;
    if (!this.#failing) {
      this.#failing = { since: Date.now(), error, retryMs: RETRY_FIRST_MS };
      this.#report({ kind: "held", events: this.#size, error });
    } else {
      this.#failing.error = error;
      this.#failing.retryMs = Math.min(this.#failing.retryMs * 2, RETRY_MAX_MS);
    }
    if (this.#size > 0) this.#schedule(this.#failing.retryMs);
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
