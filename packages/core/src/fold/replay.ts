import { CONVERSATION_EVENT_TYPES, type ToolledgerEvent } from "../events/events.js";
import { evolve } from "./evolve.js";
import { initialState, type State } from "./state.js";

/** Folds `events` over `from` (default: the initial state). */
export function replay(events: Iterable<ToolledgerEvent>, from: State = initialState()): State {
  let state = from;
  for (const event of events) state = evolve(state, event);
  return state;
}

/** Index of the latest `Compacted` event, or -1. */
export function latestCompactionIndex(events: readonly ToolledgerEvent[]): number {
  for (let i = events.length - 1; i >= 0; i--) if (events[i]!.type === "Compacted") return i;
  return -1;
}

/**
 * D7: rebuilds state from the latest `Compacted` event: registry events before it are
 * folded (they are the registry's only source), conversation events before it are skipped
 * (the `Compacted` event carries what they left). Equal to `replay(events, from)`.
 */
export function replayFromLatestCompaction(
  events: readonly ToolledgerEvent[],
  from: State = initialState(),
): State {
  const c = latestCompactionIndex(events);
  let state = from;
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    if (i < c && CONVERSATION_EVENT_TYPES.has(event.type)) continue;
    state = evolve(state, event);
  }
  return state;
}
