import { RANKING } from "./ranking.js";
import { type RegistryIndex, type TermHits, termHits } from "./registryIndex.js";
import { words } from "./searchTokens.js";
import { stemOf } from "./serverIndex.js";
import { SYNONYM_GROUPS } from "./synonyms.js";

/** One query word: the stems that count for it and their weights (its own stem first). */
export interface QueryConcept {
  word: string;
  terms: readonly { term: string; weight: number }[];
}

const synonymsByStem = new Map<string, readonly string[]>();
for (const group of SYNONYM_GROUPS) {
  const stems = [...new Set(group.map(stemOf))];
  for (const s of stems) {
    const known = synonymsByStem.get(s) ?? [];
    synonymsByStem.set(s, [...known, ...stems.filter((o) => o !== s && !known.includes(o))]);
  }
}

/** S1: a plain-words query as concepts: its words, stemmed, each with its synonyms. Repeats count once. */
export function queryConcepts(query: string): QueryConcept[] {
  const out: QueryConcept[] = [];
  const seen = new Set<string>();
  for (const word of words(query)) {
    const own = stemOf(word);
    if (seen.has(own)) continue;
    seen.add(own);
    const terms = [{ term: own, weight: 1 }];
    for (const s of synonymsByStem.get(own) ?? [])
      if (s !== own) terms.push({ term: s, weight: RANKING.synonymWeight });
    out.push({ word, terms });
  }
  return out;
}

/**
 * Scores per registry-wide tool number, and which numbers scored (in first-touched order).
 * Both are scratch shared by every call: valid until the next `scoreConcepts`.
 */
export interface Scores {
  /** Indexed by registry-wide tool number; 0 for a tool no concept matched. */
  scores: Float64Array;
  touched: Int32Array;
}

// Scratch reused by every call (a search allocates nothing in proportion to the registry).
// `scores` is all zero except at the `touchedCount` numbers the previous call left in
// `touchedList`, which the next call clears first; `best` is all zero between concepts.
let scores = new Float64Array(0);
let touchedList = new Int32Array(0);
let touchedCount = 0;
let best = new Float64Array(0);
let bestList = new Int32Array(0);

/**
 * BM25F over the registry index. Deterministic: servers in key order, postings in tool order,
 * concepts in query order, so the same index and query always give the same floats. A
 * concept counts once per tool, with its best-matching term (own word or synonym).
 */
export function scoreConcepts(index: RegistryIndex, concepts: readonly QueryConcept[]): Scores {
  for (let i = 0; i < touchedCount; i++) scores[touchedList[i]!] = 0;
  touchedCount = 0;
  const size = index.size;
  if (scores.length < size) {
    scores = new Float64Array(size);
    touchedList = new Int32Array(size);
    best = new Float64Array(size);
    bestList = new Int32Array(size);
  }
  let count = 0;
  const found: { hits: TermHits; idf: number }[] = [];
  // `finally`: whatever happens, the next call knows which entries to clear.
  try {
    for (const concept of concepts) {
      found.length = 0;
      for (const { term, weight } of concept.terms) {
        const hits = termHits(index, term);
        if (hits.df !== 0) found.push({ hits, idf: weight * hits.idf });
      }
      if (found.length === 1) {
        // One term of the concept occurs: its weight is the concept's (every weight is > 0).
        const { hits, idf } = found[0]!;
        const { docs, tf } = hits;
        for (let i = 0; i < docs.length; i++) {
          const g = docs[i]!;
          if (scores[g] === 0) touchedList[count++] = g;
          scores[g]! += idf * tf[i]!;
        }
      } else if (found.length > 1) {
        let bestCount = 0;
        for (const { hits, idf } of found) {
          const { docs, tf } = hits;
          for (let i = 0; i < docs.length; i++) {
            const g = docs[i]!;
            const value = idf * tf[i]!;
            const b = best[g]!;
            if (b === 0) bestList[bestCount++] = g;
            if (value > b) best[g] = value;
          }
        }
        for (let i = 0; i < bestCount; i++) {
          const g = bestList[i]!;
          if (scores[g] === 0) touchedList[count++] = g;
          scores[g]! += best[g]!;
          best[g] = 0;
        }
      }
    }
  } finally {
    touchedCount = count;
  }
  return { scores, touched: touchedList.subarray(0, count) };
}
