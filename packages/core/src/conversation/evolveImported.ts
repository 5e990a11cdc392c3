import type { SessionImported, UsageRecorded } from "./importedEvents.js";

/**
 * An imported session's description and its token usage change no registry or conversation
 * state: readers (sessions, replay, the view) read them from the log. The reducer returns the
 * same state (E2).
 */
export function evolveImported<S>(state: S, _event: SessionImported | UsageRecorded): S {
  return state;
}
