import { auditEnables, currentStrategy, ENABLE_TOOLS_NAME } from "@toolledger/core";
import { finalState } from "../session/foldEntries.js";
import type { LogEntry } from "../session/logEntry.js";
import { auditedEvents } from "./auditedEvents.js";
import type { Explanation, Reason } from "./explanation.js";

/** The built-in `enable_tools` (D4, D5): offered while deferral is lookup; what it enabled. */
export function explainEnableTools(entries: readonly LogEntry[]): Explanation {
  const state = finalState(entries);
  let deferralAt: number | null = null;
  for (const { event, position } of entries)
    if (event.type === "DeferralConfigured") deferralAt = position;
  // D6: paired as the reducer pairs them; a request only a compaction carried is not one of the log's.
  const requests = auditEnables(auditedEvents(entries)).requests.filter(
    (r) => !r.carriedByCompaction,
  );
  // D1/S1: offered whenever deferral is on (lookup, search, auto resolved to either).
  const lookup = state.deferral.mode !== "off";
  const strategy = currentStrategy(state);
  const ok = requests.filter((r) => r.outcome === "enabled").length;
  const failed = requests.filter((r) => r.outcome === "failed").length;
  const reasons: Reason[] = [
    {
      rule: "D1/D4",
      text: !lookup
        ? "deferral is off: the model gets every tool's schema and no enable_tools"
        : strategy === "search"
          ? `deferral is ${state.deferral.mode === "auto" ? "auto, searching now" : "search"}: the model gets search_tools and enable_tools, and finds deferred tools' names by searching (S1)`
          : `deferral is ${state.deferral.mode === "auto" ? "auto, listing names now" : "lookup"}: the model gets enable_tools and the names of deferred tools`,
      positions: deferralAt === null ? [] : [deferralAt],
    },
  ];
  if (requests.length > 0) {
    reasons.push({
      rule: "D5/D6",
      text: `${requests.length} request(s): ${ok} enabled tools, ${failed} failed and enabled nothing${requests.length - ok - failed > 0 ? `, ${requests.length - ok - failed} never answered` : ""}; enabled now: ${state.enabled.join(", ") || "none"}`,
      positions: requests.map((r) => r.requested.position),
    });
  }
  return {
    asked: ENABLE_TOOLS_NAME,
    publicName: ENABLE_TOOLS_NAME,
    wireName: lookup ? ENABLE_TOOLS_NAME : null,
    extension: null,
    rawName: null,
    status: "builtin",
    summary: lookup
      ? `${ENABLE_TOOLS_NAME} is the built-in tool of deferred loading: the model calls it with exact names to load deferred tools`
      : `${ENABLE_TOOLS_NAME} is not offered: deferral is off in this log (it is the built-in tool of deferral lookup)`,
    reasons,
    suggestions: [],
    calls: [],
  };
}
