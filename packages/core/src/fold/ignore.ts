import { DIAGNOSTIC_HISTORY_LIMIT, type State } from "./state.js";
import { update } from "./update.js";

/** An event the reducer cannot apply (E2: it never throws): kept as a diagnostic. */
export function ignore(state: State, type: string, reason: string): State {
  return update(state, {
    ignored: appendBounded(state.ignored, { type, reason }),
    ignoredCount: state.ignoredCount + 1,
  });
}

export function appendBounded<T>(list: readonly T[], item: T): readonly T[] {
  const next = [...list, item];
  return next.length > DIAGNOSTIC_HISTORY_LIMIT
    ? next.slice(next.length - DIAGNOSTIC_HISTORY_LIMIT)
    : next;
}
