import { classifyTool, isAppOnly } from "../deferral/classifyTool.js";
import type { RegisteredTool, State } from "../fold/state.js";
import { compareBytes } from "../naming/compareBytes.js";
import { isWinner } from "../naming/nameOwners.js";
import { queryConcepts, scoreConcepts } from "./rankTools.js";
import { compileRegex, type MatchBudget, regexMatches } from "./regex/boundedRegex.js";
import { flatTools, registryIndex } from "./registryIndex.js";
import { FIELD_COUNT } from "./serverIndex.js";
import { oneLineDescription } from "./toolSearchText.js";

/** S1: results a search returns when the model gives no limit (as Anthropic's tool search). */
export const DEFAULT_SEARCH_LIMIT = 5;
/** S1: the most results one search returns. */
export const MAX_SEARCH_LIMIT = 25;
/** S1: the longest query accepted. */
export const MAX_QUERY_LENGTH = 500;
/**
 * S1: the work one `/regex/` search may do, in automaton steps (about a quarter of a second
 * on a slow machine). Counted in steps, not time, so a replay stops at the same place.
 */
export const REGEX_STEP_BUDGET = 25_000_000;

/** One tool a search found: the exact name to enable (R14 wire name) and one line about it. */
export interface SearchHit {
  name: string;
  publicName: string;
  extension: string;
  description: string;
}

export type SearchErrorCode = "EMPTY_QUERY" | "QUERY_TOO_LONG" | "INVALID_REGEX" | "INVALID_LIMIT";

export type SearchToolsResult =
  | {
      ok: true;
      /** `regex` for a query written `/…/`. */
      kind: "words" | "regex";
      hits: SearchHit[];
      /** A regex search that used up its step budget: the hits are those found before it stopped. */
      truncated: boolean;
    }
  | { ok: false; error: { code: SearchErrorCode; message: string } };

export interface SearchOptions {
  limit?: number;
}

/** S1/S2: whether a search may find `tool`: it wins its name (R10) and the model sees it deferred. */
export function isSearchable(state: State, tool: RegisteredTool): boolean {
  // An app-only tool is never classed deferred (D3), whatever else holds: asked first, it is cheap.
  return (
    !isAppOnly(tool) && isWinner(state, tool) && classifyTool(state, tool).class === "deferred"
  );
}

/**
 * S1: searches the deferred tools. Plain words are ranked by BM25F with stemming, identifier
 * splitting and synonyms; a query written `/…/` is a case-insensitive regular expression over
 * the same text (bounded). Ties go to the byte-wise smaller name. Pure: the same state and
 * query give the same hits, which is what lets replay show them again (S2).
 */
export function searchTools(
  state: State,
  query: string,
  options: SearchOptions = {},
): SearchToolsResult {
  const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    return failure(
      "INVALID_LIMIT",
      `limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}; got ${JSON.stringify(limit)}`,
    );
  }
  const q = query.trim();
  if (q === "")
    return failure(
      "EMPTY_QUERY",
      'the query is empty: describe what you want to do, e.g. "create a github issue", or write /regex/',
    );
  if (q.length > MAX_QUERY_LENGTH)
    return failure(
      "QUERY_TOO_LONG",
      `the query is ${q.length} characters; the limit is ${MAX_QUERY_LENGTH}: describe the task in a few words`,
    );
  const regex = /^\/(.*)\/i?$/s.exec(q);
  if (regex && q.length >= 2) return searchRegex(state, regex[1]!, limit);
  const concepts = queryConcepts(q);
  if (concepts.length === 0)
    return failure(
      "EMPTY_QUERY",
      `the query ${JSON.stringify(q)} has only common words: name the task, e.g. "create a github issue"`,
    );
  const index = registryIndex(state);
  const { scores, touched } = scoreConcepts(index, concepts);
  const { tools, names, namesOrderNatively } = flatTools(index);
  // The best `limit` searchable tools, best first: a sorted insert (limit is at most 25).
  const top: { score: number; tool: RegisteredTool }[] = [];
  let worst = Number.NEGATIVE_INFINITY;
  let worstName = "";
  for (let j = 0; j < touched.length; j++) {
    const g = touched[j]!;
    const score = scores[g]!;
    if (score < worst) continue;
    // A tie with the last place goes to the byte-wise smaller name.
    if (score === worst) {
      const name = names[g]!;
      if (namesOrderNatively ? name >= worstName : compareBytes(name, worstName) >= 0) continue;
    }
    const tool = tools[g]!;
    if (!isSearchable(state, tool)) continue;
    let i = top.length;
    while (i > 0 && better(score, tool.wireName, top[i - 1]!)) i--;
    top.splice(i, 0, { score, tool });
    if (top.length > limit) top.pop();
    if (top.length === limit) {
      worst = top[limit - 1]!.score;
      worstName = top[limit - 1]!.tool.wireName;
    }
  }
  return { ok: true, kind: "words", hits: top.map((t) => hit(t.tool)), truncated: false };
}

function better(
  score: number,
  name: string,
  other: { score: number; tool: RegisteredTool },
): boolean {
  return (
    score > other.score || (score === other.score && compareBytes(name, other.tool.wireName) < 0)
  );
}

function searchRegex(state: State, source: string, limit: number): SearchToolsResult {
  const compiled = compileRegex(source);
  if (!compiled.ok) return failure("INVALID_REGEX", `/${source}/: ${compiled.message}`);
  const regex = compiled.regex;
  const budget: MatchBudget = { steps: REGEX_STEP_BUDGET };
  const found: { field: number; tool: RegisteredTool }[] = [];
  let truncated = false;
  scan: for (const s of registryIndex(state).servers) {
    const { tools, texts } = s.index;
    for (let d = 0; d < tools.length; d++) {
      const tool = tools[d]!;
      if (!isSearchable(state, tool)) continue;
      for (let f = 0; f < FIELD_COUNT; f++) {
        const text = texts[d]![f]!;
        if (regex.required !== "" && !text.includes(regex.required)) continue;
        const m = regexMatches(regex, text, budget);
        if (m === null) {
          truncated = true;
          break scan;
        }
        if (m) {
          found.push({ field: f, tool });
          break;
        }
      }
    }
  }
  found.sort((a, b) => a.field - b.field || compareBytes(a.tool.wireName, b.tool.wireName));
  return {
    ok: true,
    kind: "regex",
    hits: found.slice(0, limit).map((f) => hit(f.tool)),
    truncated,
  };
}

function hit(tool: RegisteredTool): SearchHit {
  return {
    name: tool.wireName,
    publicName: tool.publicName,
    extension: tool.owner,
    description: oneLineDescription(tool),
  };
}

function failure(code: SearchErrorCode, message: string): SearchToolsResult {
  return { ok: false, error: { code, message } };
}
