import { RANKING } from "./ranking.js";
import { type ConceptHits, type RegistryIndex, type TermHits, termHits } from "./registryIndex.js";
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

/**
 * One concept across the registry: each tool that has one of its terms, with the concept's
 * weight there, the largest of its terms' `weight × idf × tf` (own word or synonym). Tools in
 * first-touched order: term by term, each term's tools ascending.
 */
// Scratch reused by every call (a search allocates nothing in proportion to the registry).
// `scores` is all zero except at the `touchedCount` numbers the previous call left in
// `touchedList`, which the next call clears first; `best` is all zero between calls.
let scores = new Float64Array(0);
let touchedList = new Int32Array(0);
let touchedCount = 0;
let best = new Float64Array(0);
let bestList = new Int32Array(0);

function ensureScratch(size: number): void {
  if (scores.length >= size) return;
  for (let i = 0; i < touchedCount; i++) scores[touchedList[i]!] = 0;
  touchedCount = 0;
  scores = new Float64Array(size);
  touchedList = new Int32Array(size);
  best = new Float64Array(size);
  bestList = new Int32Array(size);
}

/** S1: a concept's hits, memoised on the (immutable) index. */
export function conceptHits(index: RegistryIndex, concept: QueryConcept): ConceptHits {
  const key = concept.terms.map((t) => `${t.term}\u0000${t.weight}`).join("\u0000");
  let hits = index.concepts.get(key);
  if (hits) return hits;
  const found: { hits: TermHits; idf: number }[] = [];
  for (const { term, weight } of concept.terms) {
    const h = termHits(index, term);
    if (h.df !== 0) found.push({ hits: h, idf: weight * h.idf });
  }
  if (found.length === 0) {
    hits = { docs: new Int32Array(0), values: new Float64Array(0) };
  } else if (found.length === 1) {
    // One term occurs: its weight is the concept's (every weight is > 0).
    const { hits: h, idf } = found[0]!;
    const values = new Float64Array(h.df);
    for (let i = 0; i < values.length; i++) values[i] = idf * h.tf[i]!;
    hits = { docs: h.docs, values };
  } else {
    ensureScratch(index.size);
    let count = 0;
    for (const { hits: h, idf } of found) {
      const { docs, tf } = h;
      for (let i = 0; i < docs.length; i++) {
        const g = docs[i]!;
        const value = idf * tf[i]!;
        const b = best[g]!;
        if (b === 0) bestList[count++] = g;
        if (value > b) best[g] = value;
      }
    }
    const docs = bestList.slice(0, count);
    const values = new Float64Array(count);
    for (let i = 0; i < count; i++) {
      const g = docs[i]!;
      values[i] = best[g]!;
      best[g] = 0;
    }
    hits = { docs, values };
  }
  if (index.concepts.size > 10_000) index.concepts.clear();
  index.concepts.set(key, hits);
  return hits;
}

/**
 * BM25F over the registry index. Deterministic: servers in key order, postings in tool order,
 * concepts in query order, so the same index and query always give the same floats. A
 * concept counts once per tool, with its best-matching term (own word or synonym).
 */
export function scoreConcepts(index: RegistryIndex, concepts: readonly QueryConcept[]): Scores {
  const all = concepts.map((c) => conceptHits(index, c));
  ensureScratch(index.size);
  for (let i = 0; i < touchedCount; i++) scores[touchedList[i]!] = 0;
  let count = 0;
  for (const { docs, values } of all) {
    for (let i = 0; i < docs.length; i++) {
      const g = docs[i]!;
      if (scores[g] === 0) touchedList[count++] = g;
      scores[g]! += values[i]!;
    }
  }
  touchedCount = count;
  return { scores, touched: touchedList.subarray(0, count) };
}
