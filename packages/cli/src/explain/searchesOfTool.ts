import {
  evolve,
  explainSearchResult,
  initialState,
  resolveTool,
  type SearchResultWhy,
} from "@toolledger/core";
import type { LogEntry } from "../session/logEntry.js";
import type { Reason } from "./explanation.js";

/**
 * S2: for every search the log recorded, whether `publicName` was among its results and, if
 * not, why: refused query, not deferred then (classifyTool), no word matched, or ranked below
 * the limit. Null when the log has no search.
 */
export function searchesReason(entries: readonly LogEntry[], publicName: string): Reason | null {
  let state = initialState();
  const lines: string[] = [];
  const positions: (number | string)[] = [];
  let returned = 0;
  for (const { event, position, label } of entries) {
    if (event.type === "ToolsSearched") {
      const resolved = resolveTool(state, publicName, { includeHidden: true });
      const why: SearchResultWhy | { kind: "unregistered" } = resolved.ok
        ? explainSearchResult(state, event, resolved.tool)
        : { kind: "unregistered" };
      if (why.kind === "returned") returned++;
      lines.push(
        `${JSON.stringify(event.query)} (${label ?? position}): ${describe(why, event.limit, event.kind)}`,
      );
      positions.push(label ?? position);
    }
    state = evolve(state, event);
  }
  if (lines.length === 0) return null;
  return {
    rule: "S2",
    text: `${lines.length} search${lines.length === 1 ? "" : "es"} recorded, ${returned} returned it: ${lines.join("; ")}`,
    positions,
  };
}

function describe(
  why: SearchResultWhy | { kind: "unregistered" },
  limit: number,
  query: "words" | "regex",
): string {
  switch (why.kind) {
    case "returned":
      return `returned it, ranked ${why.rank}`;
    case "refused":
      return `refused (${why.message})`;
    case "unregistered":
      return "not returned: it was not in the registry then";
    case "not-searchable":
      return why.class === "lost-collision"
        ? "not returned: another extension's tool had its name then (R10)"
        : `not returned: it was ${why.class} then, and only deferred tools are searched`;
    case "no-match":
      // S1: a `/regex/` query is a pattern over the text, not words with synonyms.
      return query === "regex"
        ? "not returned: the pattern matches nothing in its name, title, description or arguments"
        : "not returned: no word of the query, nor a synonym, is in its name, title, description or arguments";
    case "below-limit":
      return why.field
        ? `not returned: the pattern matches its ${why.field}, but the ${limit} results were tools matching earlier fields or sorting before it`
        : `not returned: it ranked ${why.rank}, below the ${limit} the search returned`;
    case "budget":
      return "not returned: the regular expression used up its work budget before reaching it";
  }
}
