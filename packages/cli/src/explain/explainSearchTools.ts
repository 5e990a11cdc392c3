import { currentStrategy, SEARCH_TOOLS_NAME } from "@toolledger/core";
import { finalState } from "../session/foldEntries.js";
import type { LogEntry } from "../session/logEntry.js";
import type { Explanation, Position, Reason } from "./explanation.js";

/** The built-in `search_tools` (S1, S2): offered in search mode; what the model searched for. */
export function explainSearchTools(entries: readonly LogEntry[]): Explanation {
  const state = finalState(entries);
  let deferralAt: number | null = null;
  const searches: Position[] = [];
  let refused = 0;
  let empty = 0;
  for (const { event, position, label } of entries) {
    if (event.type === "DeferralConfigured") deferralAt = position;
    if (event.type !== "ToolsSearched") continue;
    searches.push(label ?? position);
    if (event.error) refused++;
    else if (event.results.length === 0) empty++;
  }
  const offered = currentStrategy(state) === "search";
  const reasons: Reason[] = [
    {
      rule: "D1/S1",
      text: offered
        ? `deferral is ${state.deferral.mode === "auto" ? "auto and the deferred names are over its token budget" : "search"}: the model gets search_tools and enable_tools and a list of servers with their counts of deferred tools`
        : `deferral is ${state.deferral.mode === "auto" ? "auto and the deferred names fit its token budget (lookup)" : state.deferral.mode}: search_tools is not offered`,
      positions: deferralAt === null ? [] : [deferralAt],
    },
  ];
  if (searches.length > 0) {
    reasons.push({
      rule: "S2",
      text: `${searches.length} search(es) recorded: ${searches.length - refused - empty} returned tools, ${empty} found nothing, ${refused} refused; \`toolledger replay\` runs each again, \`explain <tool>\` says why a tool was or was not found`,
      positions: searches,
    });
  }
  return {
    asked: SEARCH_TOOLS_NAME,
    publicName: SEARCH_TOOLS_NAME,
    wireName: offered ? SEARCH_TOOLS_NAME : null,
    extension: null,
    rawName: null,
    status: "builtin",
    summary: offered
      ? `${SEARCH_TOOLS_NAME} is the built-in search of deferred tools: the model describes a task and gets exact names to enable`
      : `${SEARCH_TOOLS_NAME} is not offered now (it is the built-in tool of deferral search)`,
    reasons,
    suggestions: [],
    calls: [],
  };
}
