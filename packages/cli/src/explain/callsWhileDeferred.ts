import { classifyTool, evolve, getExtension, initialState } from "@toolledger/core";
import type { LogEntry } from "../logEntry.js";
import type { Position, Reason } from "./explanation.js";

/**
 * D9: positions of calls of `publicName` made while it was deferred and not enabled. Only an
 * imported session (events with an origin) can hold one: toolledger's gateway refuses them.
 */
export function callsWhileDeferred(entries: readonly LogEntry[], publicName: string): Position[] {
  const out: Position[] = [];
  if (!entries.some((e) => e.event.origin)) return out;
  let state = initialState();
  for (const { event, position, label } of entries) {
    if (
      event.type === "ToolCallStarted" &&
      event.publicName === publicName &&
      event.owner !== null
    ) {
      const tool = getExtension(state, event.owner)?.tools.find((t) => t.publicName === publicName);
      if (tool && classifyTool(state, tool).class === "deferred") out.push(label ?? position);
    }
    state = evolve(state, event);
  }
  return out;
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
