import { auditCalls } from "@toolledger/core";
import type { LogEntry } from "../session/logEntry.js";
import { auditedEvents } from "./auditedEvents.js";
import { callTasks } from "./callTasks.js";
import type { CallHistoryEntry, Reason } from "./explanation.js";

/** C4: the calls of `publicName` (or calls made with that exact name) in the log, as the call audit pairs them. */
export function callHistory(entries: readonly LogEntry[], publicName: string): CallHistoryEntry[] {
  const tasks = callTasks(entries);
  return auditCalls(auditedEvents(entries), { toolName: publicName }).map((r) => ({
    callId: r.callId,
    position: r.started.position,
    finishedAt: r.finished?.position ?? null,
    outcome: r.outcome,
    reason: r.reason,
    durationMs: r.durationMs,
    error: r.error,
    task: tasks.get(r.callId) ?? null,
  }));
}

/** C4: how often the tool was called and how those calls ended; null when it never was. */
export function callsReason(c: readonly CallHistoryEntry[]): Reason | null {
  if (c.length === 0) return null;
  const counts = new Map<string, number>();
  for (const call of c) {
    const key =
      call.outcome === null
        ? "unfinished"
        : call.outcome === "refused"
          ? `refused (${call.reason})`
          : call.outcome;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const last = c.at(-1)!;
  return {
    rule: "C4",
    text: `called ${c.length} time(s): ${[...counts].map(([k, n]) => `${n} ${k}`).join(", ")}; the last call ${last.outcome === null ? "has no outcome recorded" : `was ${last.outcome}${last.reason ? ` (${last.reason})` : ""}`}`,
    positions: c.map((x) => x.position),
  };
}
