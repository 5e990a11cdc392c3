import { ENABLE_TOOLS_NAME, resolveTool, SEARCH_TOOLS_NAME } from "@toolledger/core";
import { finalState } from "../session/foldEntries.js";
import type { LogEntry } from "../session/logEntry.js";
import { authorizationReason } from "./authorizationReason.js";
import { callHistory, callsReason } from "./callHistory.js";
import { deferredCallsReason } from "./callsWhileDeferred.js";
import { explainCallsWhileUnknown } from "./callsWhileUnknown.js";
import { tasksReason } from "./callTasks.js";
import { eraReason } from "./eraReason.js";
import { explainEnableTools } from "./explainEnableTools.js";
import { explainRegisteredTool } from "./explainRegisteredTool.js";
import { explainSearchTools } from "./explainSearchTools.js";
import { explainUnregisteredTool } from "./explainUnregisteredTool.js";
import type { Explanation, Reason } from "./explanation.js";
import { searchesReason } from "./searchesOfTool.js";
import { collectFacts } from "./toolFacts.js";

export type {
  CallHistoryEntry,
  Explanation,
  Position,
  Reason,
  ToolStatus,
} from "./explanation.js";

/**
 * Why `name` is what it is at the end of `entries` (visible, hidden, app-only, deferred,
 * enabled, renamed, or lost in a collision), citing the positions of the events that decided it.
 */
export function explainTool(entries: readonly LogEntry[], name: string): Explanation {
  let explanation =
    name.trim() === ENABLE_TOOLS_NAME
      ? explainEnableTools(entries)
      : name.trim() === SEARCH_TOOLS_NAME
        ? explainSearchTools(entries)
        : explainRegistryTool(entries, name);
  explanation.calls = callHistory(entries, explanation.publicName);
  const searches =
    explanation.status === "builtin" ? null : searchesReason(entries, explanation.publicName);
  if (searches) explanation.reasons.push(searches);
  const tasks = tasksReason(explanation.calls);
  if (tasks) explanation.reasons.push(tasks);
  const era = eraReason(entries, explanation.extension);
  if (era) explanation.reasons.push(era);
  const authorization = authorizationReason(entries, explanation.extension);
  if (authorization) explanation.reasons.push(authorization);
  const calls = callsReason(explanation.calls);
  if (calls) {
    explanation.reasons.push(calls);
    const deferred = deferredCallsReason(entries, explanation.publicName);
    if (deferred) explanation.reasons.push(deferred);
  }
  explanation = explainCallsWhileUnknown(entries, explanation);
  return explanation;
}

/** A tool of the registry (or a name that is not one), as the log's final state has it. */
function explainRegistryTool(entries: readonly LogEntry[], name: string): Explanation {
  const state = finalState(entries);
  const resolved = resolveTool(state, name, { includeHidden: true });
  const publicName = resolved.ok ? resolved.publicName : name.trim();
  const facts = collectFacts(entries, publicName);
  const reasons: Reason[] = [];
  if (resolved.ok && resolved.recovered) {
    reasons.push({
      rule: "R13",
      text: `${JSON.stringify(name)} is not a public name; it was recovered as ${publicName}`,
      positions: [],
    });
  }
  const explanation = resolved.ok
    ? explainRegisteredTool(state, name, publicName, resolved.tool, facts, reasons)
    : explainUnregisteredTool(state, name, publicName, facts, reasons);
  const registered = resolveTool(state, explanation.publicName, { includeHidden: true });
  return { ...explanation, wireName: registered.ok ? registered.wireName : null, calls: [] };
}
