import type { CallAuditRecord, EventStore } from "@toolledger/core";
import { markedCalls } from "../explain/callRegistryMark.js";
import { readSessionEntries } from "../session/readSession.js";

/**
 * D9/R13: fills each audited call's `registry` mark from its session's log, the conversation
 * read with the registry streams it observes (C1), as `replay` folds it. Each session with a
 * call is read once.
 */
export async function markAuditedCalls(
  store: EventStore,
  calls: readonly CallAuditRecord[],
): Promise<void> {
  const bySession = new Map<string, CallAuditRecord[]>();
  for (const c of calls) {
    const list = bySession.get(c.sessionId);
    if (list) list.push(c);
    else bySession.set(c.sessionId, [c]);
  }
  for (const [sessionId, records] of bySession) {
    const marks = new Map(
      markedCalls(await readSessionEntries(store, sessionId)).map((m) => [m.callId, m.mark]),
    );
    for (const r of records) r.registry = marks.get(r.callId) ?? null;
  }
}
