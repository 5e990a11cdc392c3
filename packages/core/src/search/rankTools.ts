import { RANKING } from "./ranking.js";
import { type RegistryIndex, termHits } from "./registryIndex.js";
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

/** Scores per registry-wide tool number, and which numbers scored (in first-touched order). */
export interface Scores {
  scores: Float64Array;
  touched: number[];
}

let scratch = new Float64Array(0);

/**
 * BM25F over the registry index. Deterministic: servers in key order, postings in tool order,
 * concepts in query order, so the same index and query always give the same floats.
 */
export function scoreConcepts(index: RegistryIndex, concepts: readonly QueryConcept[]): Scores {
  const scores = new Float64Array(index.size);
  const touched: number[] = [];
  // Scratch of each concept's best term per tool: reused, and left all zero after each concept.
  if (scratch.length < index.size) scratch = new Float64Array(index.size);
  const best = scratch;
  const bestTouched: number[] = [];
  const n = index.size;
  for (const concept of concepts) {
    for (const { term, weight } of concept.terms) {
      const hits = termHits(index, term);
      const df = hits.df;
      if (df === 0) continue;
      const idf = weight * Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (const { server: s, postings: p } of hits.servers) {
        const { docs, tf } = p;
        for (let i = 0; i < docs.length; i++) {
          const d = docs[i]!;
          const value = idf * tf[i]!;
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
