import { orderConversation } from "@toolledger/core";
import type { LogEntry } from "./logEntry.js";

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

/**
 * C1: the entries of a conversation's log (its own stream's and those of the registry streams
 * it observes, each stream in global order; a line without one keeps its place) in the order
 * the conversation folds them (`orderConversation`), numbered as the store's are.
 */
export function orderConversationEntries(
  entries: readonly LogEntry[],
  conversationId: string,
): LogEntry[] {
  type Placed = {
    streamId: string;
    globalPosition: number;
    event: LogEntry["event"];
    entry: LogEntry;
  };
  const streams = new Map<string, Placed[]>();
  entries.forEach((entry, i) => {
    const streamId = entry.streamId!;
    const list = streams.get(streamId) ?? [];
    if (list.length === 0) streams.set(streamId, list);
    list.push({
      streamId,
      globalPosition: entry.globalPosition ?? i + 1,
      event: entry.event,
      entry,
    });
  });
  for (const list of streams.values()) list.sort((a, b) => a.globalPosition - b.globalPosition);
  const own = streams.get(conversationId) ?? [];
  streams.delete(conversationId);
  const ordered = [...orderConversation(own, streams)].map((p) => p.entry);
  numberConversationEntries(ordered, conversationId);
  return ordered;
}
