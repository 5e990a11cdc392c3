import type { RegistryIndex } from "./registryIndex.js";
import { words } from "./searchTokens.js";
import { FIELD_COUNT, stemOf } from "./serverIndex.js";
import { SYNONYM_GROUPS } from "./synonyms.js";

/**
 * S1: the ranking's parameters. BM25F: each field's term count is weighted and normalised by
 * the field's length, then saturated once per term; a query word also finds the other words
 * of its synonym group at a lower weight. Tuned on half of the labelled queries (bench).
 */
export const RANKING = Object.freeze({
  k1: 1.2,
  /** Length normalisation per field: name, title, description, argument names, argument descriptions. */
  b: [0.5, 0.5, 0.75, 0.5, 0.75] as readonly number[],
  /** Field weights, same order. */
  weights: [3, 2, 1, 0.7, 0.4] as readonly number[],
  /** The weight of a synonym's match against the word's own. */
  synonymWeight: 0.6,
});

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

/** Scores per registry-wide tool number, and which numbers scored (in first-touched order). */
export interface Scores {
  scores: Float64Array;
  touched: number[];
}

/**
 * BM25F over the registry index. Deterministic: servers in key order, postings in tool order,
 * concepts in query order, so the same index and query always give the same floats.
 */
export function scoreConcepts(index: RegistryIndex, concepts: readonly QueryConcept[]): Scores {
  const scores = new Float64Array(index.size);
  const touched: number[] = [];
  const best = new Float64Array(index.size);
  const bestTouched: number[] = [];
  const { k1, b, weights } = RANKING;
  const avg = index.averageLengths;
  const n = index.size;
  for (const concept of concepts) {
    for (const { term, weight } of concept.terms) {
      let df = 0;
      for (const s of index.servers) df += s.index.postings.get(term)?.docs.length ?? 0;
      if (df === 0) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (const s of index.servers) {
        const p = s.index.postings.get(term);
        if (!p) continue;
        const lengths = s.index.lengths;
        for (let i = 0; i < p.docs.length; i++) {
          const d = p.docs[i]!;
          let tf = 0;
          for (let f = 0; f < FIELD_COUNT; f++) {
            const count = p.tf[i * FIELD_COUNT + f]!;
            if (count === 0) continue;
            const norm =
              avg[f]! > 0 ? 1 - b[f]! + (b[f]! * lengths[d * FIELD_COUNT + f]!) / avg[f]! : 1;
            tf += (weights[f]! * count) / norm;
          }
          const value = weight * idf * (tf / (k1 + tf));
          const g = s.offset + d;
          if (best[g] === 0) bestTouched.push(g);
          if (value > best[g]!) best[g] = value;
        }
      }
    }
    // A concept counts once per tool: its best-matching term (own word or synonym).
    for (const g of bestTouched) {
      if (scores[g] === 0) touched.push(g);
      scores[g]! += best[g]!;
      best[g] = 0;
    }
    bestTouched.length = 0;
  }
  return { scores, touched };
}
