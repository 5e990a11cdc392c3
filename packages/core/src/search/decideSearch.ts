import { type At, accepted, type Decision, type ParsedCommand, v } from "../decide/decision.js";
import type { State } from "../fold/state.js";
import type { ToolsSearched } from "./searchEvents.js";
import { DEFAULT_SEARCH_LIMIT, searchTools } from "./searchTools.js";

export type SearchCommand = Extract<ParsedCommand, { type: "SearchTools" }>;

/**
 * S1/S2: answers a `search_tools` call from the registry of this moment and records what it
 * returned. A query the search refuses (empty, too long, a bad regex, a bad limit) is recorded
 * too, with its error: the audit sees every search the model made.
 */
export function decideSearch(state: State, command: SearchCommand, at: At): Decision {
  const limit = command.limit ?? DEFAULT_SEARCH_LIMIT;
  const result = searchTools(state, command.query, { limit });
  const base: Pick<ToolsSearched, "type" | "v" | "at" | "callId" | "query" | "limit"> = {
    type: "ToolsSearched",
    v,
    ...at,
    callId: command.callId,
    query: command.query,
    limit,
  };
  if (!result.ok) return accepted([{ ...base, kind: "words", results: [], error: result.error }]);
  return accepted([
    {
      ...base,
      kind: result.kind,
      results: result.hits.map((h) => h.name),
      ...(result.truncated ? { truncated: true } : {}),
    },
  ]);
}
