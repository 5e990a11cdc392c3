import {
  type EventStore,
  orderConversation,
  readConversationLog,
  type SessionStore,
} from "@toolledger/core";
import { CliError } from "../program/cliError.js";
import { numberConversationEntries } from "./conversationEntries.js";
import type { LogEntry } from "./logEntry.js";

/**
 * Every event of a session, in fold order; a session with no events is a not-found error
 * naming the known ones. A conversation (C1) comes with the events of the registry streams
 * it observes, in the order it folds them (`orderConversation`: ordered, not folded), each
 * entry numbered by its position in this merged log; a legacy session or a registry stream
 * is read alone, numbered by its stream positions.
 */
export async function readSession(store: SessionStore, sessionId: string): Promise<LogEntry[]> {
  const entries = await readSessionEntries(store, sessionId);
  if (entries.length === 0) throw await sessionNotFound(store, sessionId);
  return entries;
}

/** readSession for any store; an unknown session has no entries. */
export async function readSessionEntries(
  store: EventStore,
  sessionId: string,
): Promise<LogEntry[]> {
  const log = await readConversationLog(store, sessionId);
  if (log.registries.size === 0) {
    return log.events.map((e) => ({
      position: e.streamPosition,
      event: e.event,
      eventId: e.eventId,
      recordedAt: e.recordedAt,
      metadata: e.metadata,
    }));
  }
  const entries: LogEntry[] = [];
  for (const e of orderConversation(log.events, log.registries)) {
    entries.push({
      position: entries.length + 1,
      event: e.event,
      eventId: e.eventId,
      recordedAt: e.recordedAt,
      metadata: e.metadata,
      streamId: e.streamId,
      streamPosition: e.streamPosition,
      globalPosition: e.globalPosition,
    });
  }
  numberConversationEntries(entries, sessionId);
  return entries;
}

export async function sessionNotFound(store: SessionStore, sessionId: string): Promise<CliError> {
  const sessions = await store.listSessions();
  const known = sessions.slice(-5).map((s) => s.sessionId);
  return new CliError("notFound", `no session ${JSON.stringify(sessionId)} in ${store.location}`, {
    hint:
      known.length > 0
        ? `known sessions include ${known.join(", ")}; run \`toolledger sessions\` with the same --db to list them all`
        : "the database has no sessions yet; run `toolledger demo` to record one",
  });
}
