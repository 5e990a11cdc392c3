import type { Command, Decision, State } from "@toolledger/core";
import { newEventId } from "./newEventId.js";
import type { BehindEvent } from "./writeBehindQueue.js";

/**
 * L1: a decision written ahead, waiting for its events to be stored. Its events carry it
 * (`BehindEvent.ahead`), so a group being committed knows whose caller to tell and what to
 * decide again.
 */
export interface AheadEntry {
  make: (state: State) => Command;
  decision: Decision;
  /** The version of the stream the writer's view composes in, when it was decided. */
  followed: number;
  /** How many of other writers' events the writer had folded when it was decided. */
  foreign: number;
  events: BehindEvent[];
  resolve: (decision: Decision) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout | null;
}

/** Where an entry is decided: what the writer's state and clocks are now. */
export interface AheadContext {
  decide: (make: (state: State) => Command) => Decision;
  followed: () => number;
  foreign: () => number;
}

/** A decision's events, each with a fresh id and the entry it belongs to. */
export function aheadEvents(entry: AheadEntry, decision: Decision): BehindEvent[] {
  if (!decision.ok) return [];
  return decision.events.map((event) => ({ eventId: newEventId(), event, ahead: entry }));
}

/** A new entry for `decision`, its events made, its caller's promise settled by `resolve`/`reject`. */
export function newAheadEntry(
  make: (state: State) => Command,
  decision: Decision,
  context: AheadContext,
  resolve: (decision: Decision) => void,
  reject: (error: unknown) => void,
): AheadEntry {
  const entry: AheadEntry = {
    make,
    decision,
    followed: context.followed(),
    foreign: context.foreign(),
    events: [],
    resolve,
    reject,
    timer: null,
  };
  entry.events = aheadEvents(entry, decision);
  return entry;
}

/** The distinct entries of a group's events written ahead, in order. */
function* entriesOf(group: readonly BehindEvent[]): Generator<AheadEntry> {
  let last: object | undefined;
  for (const { ahead } of group) {
    if (ahead === undefined || ahead === last) continue;
    last = ahead;
    yield ahead as AheadEntry;
  }
}

/** Tells the callers of a stored group's decisions written ahead. */
export function settleStored(group: readonly BehindEvent[]): void {
  for (const entry of entriesOf(group)) {
    if (entry.timer) clearTimeout(entry.timer);
    entry.resolve(entry.decision);
  }
}

/** A group refused for good: the callers of its decisions written ahead get the refusal. */
export function rejectAll(group: readonly BehindEvent[], error: Error): void {
  for (const entry of entriesOf(group)) {
    if (entry.timer) clearTimeout(entry.timer);
    entry.reject(error);
  }
}

/**
 * Whether a decision written ahead in `group` was made against a state that has moved since:
 * another writer's events were folded into the stream (a catch-up between the decision and
 * this append), or the stream the view composes in moved.
 */
export function decidedOnStale(group: readonly BehindEvent[], context: AheadContext): boolean {
  const followed = context.followed();
  const foreign = context.foreign();
  for (const entry of entriesOf(group))
    if (entry.followed !== followed || entry.foreign !== foreign) return true;
  return false;
}

/**
 * L2: the stream moved before `group` was stored: each decision written ahead in it is made
 * again against the stream as it is now (none of them went anywhere yet); events written
 * behind stay as they were (what they record already happened). Returns the group's new
 * events; an entry decided into nothing (or a refusal without events) is told at once.
 */
export function redecide(group: readonly BehindEvent[], context: AheadContext): BehindEvent[] {
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
      decision = context.decide(entry.make);
    } catch (error) {
      entry.reject(error);
      continue;
    }
    entry.decision = decision;
    entry.followed = context.followed();
    entry.foreign = context.foreign();
    if (!decision.ok || decision.events.length === 0) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.resolve(decision);
      continue;
    }
    entry.events = aheadEvents(entry, decision);
    events.push(...entry.events);
  }
  return events;
}
