import type { ToolledgerEvent } from "@toolledger/core";
import { AdapterError } from "../adapterError.js";
import type { WriteBehindReport } from "../ledger/writeBehindQueue.js";

/**
 * C4: what the user of a conversation's host is told of call events the store refused:
 * held (a failure, with the store's error), stored once it is back (news), or lost (a
 * failure naming each call).
 */
export function writeBehindNotice(
  conversationId: string,
  report: WriteBehindReport,
  maxHeld: number,
): { error: AdapterError } | { notice: string } {
  if (report.kind === "stored")
    return {
      notice: `conversation ${conversationId}: the event store is back; ${report.events} held call event(s) stored after ${Math.round(report.heldMs)} ms`,
    };
  if (report.kind === "held")
    return {
      error: new AdapterError(
        "APPEND_REJECTED",
        `conversation ${conversationId}: the event store refused ${report.events} call event(s); they are kept in memory and written when it is back (new calls are refused while ${maxHeld} wait): ${report.error.message}`,
        { cause: report.error },
      ),
    };
  return {
    error: new AdapterError(
      "APPEND_REJECTED",
      `conversation ${conversationId}: LOST ${report.events.length} call event(s) the event store never took: ${describeLost(report.events)}; ${report.error.message}`,
      { cause: report.error },
    ),
  };
}

/** The calls whose events were lost, as a user can look them up: `call <id> (started <name>, finished <outcome>)`. */
function describeLost(events: readonly { event: ToolledgerEvent }[]): string {
  const calls = new Map<string, string[]>();
  for (const { event } of events) {
    if (event.type !== "ToolCallStarted" && event.type !== "ToolCallFinished") continue;
    const what =
      event.type === "ToolCallStarted" ? `started ${event.name}` : `finished ${event.outcome}`;
    calls.set(event.callId, [...(calls.get(event.callId) ?? []), what]);
  }
  return [...calls].map(([id, what]) => `call ${id} (${what.join(", ")})`).join("; ");
}
