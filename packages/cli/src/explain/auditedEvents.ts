import type { StoredEvent } from "@toolledger/core";
import type { LogEntry } from "../session/logEntry.js";

/**
 * The log's entries as the core's audits (`auditEnables`, `auditCalls`) read stored events,
 * each at the position explain cites (a conversation's own position, C1).
 */
export function* auditedEvents(entries: readonly LogEntry[]): Generator<StoredEvent> {
  let i = 0;
  for (const entry of entries) {
    i++;
    yield {
      streamId: entry.streamId ?? "",
      streamPosition: entry.position,
      globalPosition: entry.globalPosition ?? i,
      eventId: entry.eventId ?? "",
      event: entry.event,
      metadata: entry.metadata ?? {},
      recordedAt: entry.recordedAt ?? "",
    };
  }
}
