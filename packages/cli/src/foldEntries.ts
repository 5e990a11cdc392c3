import {
  evolve,
  foldConversation,
  initialState,
  type State,
  type StoredEvent,
} from "@toolledger/core";
import type { LogEntry } from "./logEntry.js";

/** One entry of a log and the state right after it. */
export interface FoldedEntry {
  entry: LogEntry;
  state: State;
  /** A registry event a resumed conversation folded to catch up (see foldConversation). */
  catchUp: boolean;
}

/**
 * C1: folds a log entry by entry. A conversation log (entries of a conversation stream,
 * which starts with ConversationStarted, and of the registry streams it observes) is
 * folded the way the conversation saw it (`foldConversation`); any other log (a legacy
 * session, a registry stream, a file of bare events) is folded in order.
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
  const streams = new Map<string, StoredEvent[]>();
  const byKey = new Map<string, LogEntry>();
  entries.forEach((entry, i) => {
    const streamId = entry.streamId!;
    const stored: StoredEvent = {
      streamId,
      streamPosition: entry.streamPosition ?? entry.position,
      globalPosition: entry.globalPosition ?? i + 1,
      eventId: entry.eventId ?? `${streamId}-${i}`,
      event: entry.event,
      metadata: entry.metadata ?? {},
      recordedAt: entry.recordedAt ?? "",
    };
    const list = streams.get(streamId) ?? [];
    if (list.length === 0) streams.set(streamId, list);
    list.push(stored);
    byKey.set(`${streamId}\n${stored.streamPosition}`, entry);
  });
  for (const list of streams.values()) {
    list.sort((a, b) => a.globalPosition - b.globalPosition);
  }
  const own = streams.get(conversation)!;
  streams.delete(conversation);
  for (const step of foldConversation(own, streams)) {
    const entry = byKey.get(`${step.stored.streamId}\n${step.stored.streamPosition}`)!;
    yield { entry, state: step.state, catchUp: step.catchUp === true };
  }
}

/** The state at the end of a log (see foldEntries). */
export function finalState(entries: readonly LogEntry[]): State {
  let state = initialState();
  for (const step of foldEntries(entries)) state = step.state;
  return state;
}

/** The conversation stream of a multi-stream log, or null when the log is a single stream. */
export function conversationStreamOf(entries: readonly LogEntry[]): string | null {
  const first = new Map<string, LogEntry>();
  for (const e of entries) {
    if (e.streamId === undefined) return null;
    const seen = first.get(e.streamId);
    if (!seen || (e.streamPosition ?? e.position) < (seen.streamPosition ?? seen.position))
      first.set(e.streamId, e);
  }
  for (const [streamId, e] of first) if (e.event.type === "ConversationStarted") return streamId;
  return null;
}

/**
 * C1: numbers a conversation log the way replay, audit and explain cite it: a conversation
 * event by its position in the conversation stream, a registry event by the conversation
 * position it follows (shown as `h<registry position>`), so `--to N` means "after the
 * conversation's event N".
 */
export function numberConversationEntries(entries: LogEntry[], conversationId: string): void {
  let position = 0;
  for (const e of entries) {
    if (e.streamId === conversationId) {
      position = e.streamPosition ?? position;
      e.position = position;
      delete e.label;
    } else {
      e.position = position;
      e.label = `h${e.streamPosition ?? "?"}`;
    }
  }
}
