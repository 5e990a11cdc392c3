import type { RegisteredTool } from "../fold/state.js";
import { ordersNatively } from "../naming/compareBytes.js";
import { PRIOR_TOOLS, RANKING, TYPICAL_LENGTHS } from "./ranking.js";
import { stem, words } from "./searchTokens.js";
import { SEARCH_FIELDS, type SearchField, toolSearchText } from "./toolSearchText.js";

export const FIELD_COUNT = SEARCH_FIELDS.length;

/** One term's occurrences in a server's tools: the tools (by position) and their BM25F weight. */
export interface Postings {
  /** Positions in `ServerIndex.tools`, ascending. */
  docs: Int32Array;
  /** Per entry of `docs`: BM25F's saturated term weight, tf / (k1 + tf), tf being the field-weighted, length-normalised count. */
  tf: Float64Array;
}

/**
 * S1: one server's part of the search index, built from its registered tools alone. A new
 * `ToolsFetched` gives the extension a new tools list, and only that list is indexed again.
 */
export interface ServerIndex {
  tools: readonly RegisteredTool[];
  /** Stemmed term → postings. */
  postings: ReadonlyMap<string, Postings>;
  /** FIELD_COUNT lengths (in words) per tool. */
  lengths: Float64Array;
  /** Sum of the lengths per field. */
  lengthSums: Float64Array;
  /** Lowercased text per tool and field, for `/regex/` queries. */
  texts: readonly (readonly string[])[];
  /** No tool's wire name has a code unit from U+D800 up (`ordersNatively`). */
  namesOrderNatively: boolean;
  /** The server's commonest topic words (from its tools' names), for the prompt's one-line summary. */
  topics: readonly string[];
}

const cache = new WeakMap<readonly RegisteredTool[], ServerIndex>();

/** The index of one extension's tools, memoised per (immutable) tools list. */
export function serverIndex(tools: readonly RegisteredTool[]): ServerIndex {
  let index = cache.get(tools);
  if (!index) {
    index = buildServerIndex(tools);
    cache.set(tools, index);
  }
  return index;
}

const stems = new Map<string, string>();
/** stem() memoised: tool text repeats the same few thousand words. */
export function stemOf(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    s = stem(word);
    if (stems.size > 100_000) stems.clear();
    stems.set(word, s);
  }
  return s;
}

function buildServerIndex(tools: readonly RegisteredTool[]): ServerIndex {
  const building = new Map<string, number[]>();
  /** FIELD_COUNT raw counts per entry, turned into `tf` once every length is known. */
  const counts = new Map<string, number[]>();
  const lengths = new Float64Array(tools.length * FIELD_COUNT);
  const lengthSums = new Float64Array(FIELD_COUNT);
  const texts: string[][] = [];
  const topicCounts = new Map<string, number>();
  for (let d = 0; d < tools.length; d++) {
    const tool = tools[d]!;
    const fields = toolSearchText(tool);
    const row: string[] = [];
    for (let f = 0; f < FIELD_COUNT; f++) {
      const field: SearchField = SEARCH_FIELDS[f]!;
      const text = fields[field];
      row.push(text.toLowerCase());
      const ws = words(text);
      lengths[d * FIELD_COUNT + f] = ws.length;
      lengthSums[f]! += ws.length;
      for (const w of ws) {
        const term = stemOf(w);
        let p = building.get(term);
        let c = counts.get(term);
        if (!p || !c) {
          p = [];
          c = [];
          building.set(term, p);
          counts.set(term, c);
        }
        if (p[p.length - 1] !== d) {
          p.push(d);
          for (let k = 0; k < FIELD_COUNT; k++) c.push(0);
        }
        c[(p.length - 1) * FIELD_COUNT + f]! += 1;
      }
    }
    texts.push(row);
    for (const w of new Set(words(tool.rawName))) {
      if (!GENERIC_WORDS.has(w) && w.length > 1 && !/^[0-9]+$/.test(w))
        topicCounts.set(w, (topicCounts.get(w) ?? 0) + 1);
    }
  }
  const topics = [...topicCounts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, 6)
    .map(([w]) => w);
  const { b, weights, k1 } = RANKING;
  const avg = SEARCH_FIELDS.map(
    (_, f) => (lengthSums[f]! + TYPICAL_LENGTHS[f]! * PRIOR_TOOLS) / (tools.length + PRIOR_TOOLS),
  );
  const postings = new Map<string, Postings>();
  for (const [term, docs] of building) {
    const c = counts.get(term)!;
    const p: Postings = { docs: Int32Array.from(docs), tf: new Float64Array(docs.length) };
    postings.set(term, p);
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i]!;
      let tf = 0;
      for (let f = 0; f < FIELD_COUNT; f++) {
        const n = c[i * FIELD_COUNT + f]!;
        if (n === 0) continue;
        tf += (weights[f]! * n) / (1 - b[f]! + (b[f]! * lengths[d * FIELD_COUNT + f]!) / avg[f]!);
      }
      p.tf[i] = tf / (k1 + tf);
    }
  }
  const namesOrderNatively = tools.every((t) => ordersNatively(t.wireName));
  return { tools, postings, lengths, lengthSums, texts, topics, namesOrderNatively };
}

/** Verbs and filler of tool names that say what is done, not what a server is about. */
const GENERIC_WORDS: ReadonlySet<string> = new Set([
  "get",
  "list",
  "create",
  "update",
  "delete",
  "remove",
  "add",
  "set",
  "search",
  "find",
  "read",
  "write",
  "fetch",
  "retrieve",
  "post",
  "patch",
  "put",
  "api",
  "new",
  "edit",
  "run",
  "make",
  "show",
  "query",
  "open",
  "close",
  "move",
  "all",
  "by",
  "info",
  "details",
  "multiple",
  "or",
  "and",
  "to",
  "with",
  "for",
  "of",
  "the",
  "a",
]);
