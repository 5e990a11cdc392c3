import { classifyTool, type ToolClass } from "../deferral/classifyTool.js";
import type { RegisteredTool, State } from "../fold/state.js";
import { compareBytes } from "../naming/compareBytes.js";
import { isWinner } from "../naming/nameOwners.js";
import { queryConcepts, scoreConcepts } from "./rankTools.js";
import { compileRegex, regexMatches } from "./regex/boundedRegex.js";
import { flatTools, registryIndex } from "./registryIndex.js";
import type { ToolsSearched } from "./searchEvents.js";
import { isSearchable, REGEX_STEP_BUDGET } from "./searchTools.js";
import { FIELD_COUNT } from "./serverIndex.js";
import { SEARCH_FIELDS } from "./toolSearchText.js";

/** S2: why one tool was or was not among one recorded search's results. */
export type SearchResultWhy =
  | { kind: "returned"; rank: number }
  | { kind: "refused"; message: string }
  /** classifyTool did not serve it deferred then (hidden, app-only, eager), or it lost its name (R10). */
  | { kind: "not-searchable"; class: ToolClass | "lost-collision" }
  /** No word of the query (nor a synonym) is in its text; for a regex, the pattern does not match. */
  | { kind: "no-match" }
  /** It matched, but `rank` searchable tools ranked at or above it and the search returned `limit`. */
  | { kind: "below-limit"; rank: number; limit: number; field?: string }
  /** A regex search that used up its step budget before it reached this tool. */
  | { kind: "budget" };

/**
 * S2: explains `tool`'s place in `event`, a search recorded on `stateBefore` (the state the
 * log folds to just before it). Pure, like the search itself.
 */
export function explainSearchResult(
  stateBefore: State,
  event: ToolsSearched,
  tool: RegisteredTool,
): SearchResultWhy {
  if (event.error) return { kind: "refused", message: event.error.message };
  const at = event.results.indexOf(tool.wireName);
  if (at !== -1) return { kind: "returned", rank: at + 1 };
  if (!isWinner(stateBefore, tool)) return { kind: "not-searchable", class: "lost-collision" };
  const c = classifyTool(stateBefore, tool).class;
  if (c !== "deferred") return { kind: "not-searchable", class: c };
  const q = event.query.trim();
  if (event.kind === "regex") {
    const compiled = compileRegex(/^\/(.*)\/i?$/s.exec(q)?.[1] ?? "");
    if (!compiled.ok) return { kind: "refused", message: compiled.message };
    for (const s of registryIndex(stateBefore).servers) {
      const d = s.index.tools.indexOf(tool);
      if (d === -1) continue;
      for (let f = 0; f < FIELD_COUNT; f++) {
        const m = regexMatches(compiled.regex, s.index.texts[d]![f]!, { steps: REGEX_STEP_BUDGET });
        if (m === null) return { kind: "budget" };
        if (m)
          return { kind: "below-limit", rank: 0, limit: event.limit, field: SEARCH_FIELDS[f]! };
      }
    }
    return event.truncated ? { kind: "budget" } : { kind: "no-match" };
  }
  const index = registryIndex(stateBefore);
  const { scores, touched } = scoreConcepts(index, queryConcepts(q));
  const { tools } = flatTools(index);
  let mine = -1;
  for (const g of touched) if (tools[g] === tool) mine = g;
  if (mine === -1) return { kind: "no-match" };
  const score = scores[mine]!;
  let rank = 1;
  for (const g of touched) {
    if (g === mine) continue;
    const other = tools[g]!;
    const s = scores[g]!;
    if (
      (s > score || (s === score && compareBytes(other.wireName, tool.wireName) < 0)) &&
      isSearchable(stateBefore, other)
    )
      rank++;
  }
  return { kind: "below-limit", rank, limit: event.limit };
}
