import type { State } from "../fold/state.js";
import { resolveTool } from "../naming/resolveTool.js";
import type { ToolsSearched } from "./searchEvents.js";
import { searchTools } from "./searchTools.js";
import { oneLineDescription } from "./toolSearchText.js";

/** One result as the model reads it: the exact name to enable and one line about the tool. */
export interface SearchAnswerTool {
  name: string;
  description: string;
}

/** S1: what `search_tools` answers the model, built from a recorded search alone. */
export interface SearchAnswer {
  /** True when the query was refused (empty, too long, a bad regex or limit). */
  isError: boolean;
  text: string;
  tools: SearchAnswerTool[];
}

/**
 * S1/S2: the answer to a recorded search: its names in rank order, each with the first line
 * of its description in `state` (the registry the search ran on). Pure, so a replay shows the
 * model's answer again from the log.
 */
export function searchAnswer(state: State, event: ToolsSearched): SearchAnswer {
  if (event.error) return { isError: true, text: event.error.message, tools: [] };
  const tools = event.results.map((name) => {
    const r = resolveTool(state, name);
    return { name, description: r.ok ? oneLineDescription(r.tool) : "" };
  });
  if (tools.length === 0) {
    return {
      isError: false,
      text:
        event.kind === "regex"
          ? `No deferred tool matches ${event.query}.`
          : `No deferred tool matches ${JSON.stringify(event.query)}. Try other words for the task, or /regex/ over names and descriptions.`,
      tools,
    };
  }
  const lines = tools.map((t) => `- ${t.name}${t.description ? `: ${t.description}` : ""}`);
  return {
    isError: false,
    text: [
      ...lines,
      "",
      `Load the ones you need with enable_tools, e.g. {"names": [${JSON.stringify(tools[0]!.name)}]}.${event.truncated ? " The regular expression used up its work budget: these are the matches found before it stopped; narrow it to see the rest." : ""}`,
    ].join("\n"),
    tools,
  };
}

/** S2: a recorded search run again on the state it ran on, and whether it gives the same names. */
export interface ReproducedSearch {
  same: boolean;
  /** The names the search gives now (empty when it is refused now). */
  results: string[];
}

/**
 * S2: replays one search. `stateBefore` is the state the log folds to just before the
 * `ToolsSearched` event; a search is a pure function of it, so the names must be the same.
 */
export function reproduceSearch(stateBefore: State, event: ToolsSearched): ReproducedSearch {
  const again = searchTools(stateBefore, event.query, { limit: event.limit });
  const results = again.ok ? again.hits.map((h) => h.name) : [];
  const errorNow = again.ok ? undefined : again.error.code;
  const same =
    errorNow === event.error?.code &&
    results.length === event.results.length &&
    results.every((n, i) => n === event.results[i]) &&
    (again.ok ? again.truncated === (event.truncated ?? false) : true);
  return { same, results };
}
