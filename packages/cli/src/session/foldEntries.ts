import { evolve, foldOrderedConversation, initialState, type State } from "@toolledger/core";
import { conversationStreamOf } from "./conversationEntries.js";
import type { LogEntry } from "./logEntry.js";

/** One entry of a log and the state right after it. */
export interface FoldedEntry {
  entry: LogEntry;
  state: State;
  /** A registry event a resumed conversation folded to catch up (see foldConversation). */
  catchUp: boolean;
}

/**
 * C1: folds a log entry by entry, once. A conversation log (entries of a conversation
 * stream, which starts with ConversationStarted, and of the registry streams it observes)
 * is read in the order the conversation folds it (readSession, readJsonl) and folded the way
 * the conversation saw it (`foldOrderedConversation`); any other log (a legacy session, a
 * registry stream, a file of bare events) is folded in order.
 */
export function* foldEntries(
  entries: readonly LogEntry[],
  from: State = initialState(),
): Generator<FoldedEntry> {
  const conversation = conversationStreamOf(entries);
  if (conversation === null) {
    let state = from;
    for (const entry of entries) {
      state = evolve(state, entry.event);
      yield { entry, state, catchUp: false };
    }
    return;
  }
  // Every entry of a conversation log names its stream (conversationStreamOf checked).
  const inStreams = entries as readonly (LogEntry & { streamId: string })[];
  for (const step of foldOrderedConversation(inStreams, conversation)) {
    yield { entry: step.stored, state: step.state, catchUp: step.catchUp === true };
  }
}

/** The state at the end of a log (see foldEntries). */
export function finalState(entries: readonly LogEntry[]): State {
  let state = initialState();
  for (const step of foldEntries(entries)) state = step.state;
  return state;
}
