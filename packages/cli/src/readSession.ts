import type { SqliteEventStore } from "@toolledger/store-sqlite";
import { CliError } from "./cliError.js";
import type { LogEntry } from "./logEntry.js";

const PAGE = 5000;

/** Every event of a session, in order; a session with no events is a not-found error naming the known ones. */
export async function readSession(store: SqliteEventStore, sessionId: string): Promise<LogEntry[]> {
  const entries: LogEntry[] = [];
  for (let from = 1; ; from += PAGE) {
    const page = await store.readStream(sessionId, { fromPosition: from, maxCount: PAGE });
    for (const e of page) {
      entries.push({
        position: e.streamPosition,
        event: e.event,
        eventId: e.eventId,
        recordedAt: e.recordedAt,
        metadata: e.metadata,
      });
    }
    if (page.length < PAGE) break;
  }
  if (entries.length === 0) throw await sessionNotFound(store, sessionId);
  return entries;
}

export async function sessionNotFound(
  store: SqliteEventStore,
  sessionId: string,
): Promise<CliError> {
  const sessions = await store.listSessions();
  const known = sessions.slice(-5).map((s) => s.sessionId);
  return new CliError("notFound", `no session ${JSON.stringify(sessionId)} in ${store.file}`, {
    hint:
      known.length > 0
        ? `known sessions include ${known.join(", ")}; run \`toolledger sessions --db ${store.file}\` to list them all`
        : "the database has no sessions yet; run `toolledger demo` to record one",
  });
}
