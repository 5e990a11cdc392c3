import type { LogEntry } from "../session/logEntry.js";
import { markedCalls } from "./callRegistryMark.js";
import type { Position, Reason } from "./explanation.js";

/**
 * D9: positions of calls of `publicName` made while it was deferred and not enabled. Only an
 * imported session (events with an origin) can hold one: toolledger's gateway refuses them.
 */
export function callsWhileDeferred(entries: readonly LogEntry[], publicName: string): Position[] {
  if (!entries.some((e) => e.event.origin)) return [];
  return markedCalls(entries)
    .filter((c) => c.mark === "deferred" && c.publicName === publicName)
    .map((c) => c.position);
}

/** D9: the reason that says how many calls came while the tool was deferred; null when none did. */
export function deferredCallsReason(
  entries: readonly LogEntry[],
  publicName: string,
): Reason | null {
  const early = callsWhileDeferred(entries, publicName);
  if (early.length === 0) return null;
  return {
    rule: "D9",
    text: `${early.length} of these calls came while it was deferred and not enabled: the host that recorded them (an imported session) let them through; toolledger's gateway refuses such a call`,
    positions: early,
  };
}
