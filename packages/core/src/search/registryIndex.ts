import type { ExtensionState, RegisteredTool, State } from "../fold/state.js";
import { listExtensions } from "../registry/extensions.js";
import { type Postings, type ServerIndex, serverIndex } from "./serverIndex.js";

/** A query concept's hits over the registry: the tools' numbers and what each scores (rankTools). */
export interface ConceptHits {
  docs: Int32Array;
  values: Float64Array;
}

/**
 * One term across the registry: the tools that have it, by registry-wide number (servers in
 * key order, each server's tools in order), with their BM25F weights, in one pair of arrays.
 */
export interface TermHits {
  /** Tools that have the term (document frequency). */
  df: number;
  /** BM25's idf of the term in this registry, log(1 + (N - df + 0.5) / (df + 0.5)); 0 when df is 0. */
  idf: number;
  /** Registry-wide tool numbers, ascending. */
  docs: Int32Array;
  /** Per entry of `docs`: the saturated term weight of the server's postings (`Postings.tf`). */
  tf: Float64Array;
}

/** S1: a term's hits, memoised on the (immutable) index. */
export function termHits(index: RegistryIndex, term: string): TermHits {
  let hits = index.terms.get(term);
  if (!hits) {
    let df = 0;
    const found: { offset: number; postings: Postings }[] = [];
    for (const server of index.servers) {
      const postings = server.index.postings.get(term);
      if (!postings) continue;
      df += postings.docs.length;
      found.push({ offset: server.offset, postings });
    }
    const docs = new Int32Array(df);
    const tf = new Float64Array(df);
    let at = 0;
    for (const { offset, postings } of found) {
      const d = postings.docs;
      for (let i = 0; i < d.length; i++) docs[at + i] = offset + d[i]!;
      tf.set(postings.tf, at);
      at += d.length;
    }
    const n = index.size;
    const idf = df === 0 ? 0 : Math.log(1 + (n - df + 0.5) / (df + 0.5));
    hits = { df, idf, docs, tf };
    if (index.terms.size > 10_000) index.terms.clear();
    index.terms.set(term, hits);
  }
  return hits;
}

/** The registry's tools and their wire names by registry-wide number. */
export interface FlatTools {
  tools: readonly RegisteredTool[];
  names: readonly string[];
  /** No name has a code unit from U+D800 up: `<` on names is byte-wise order. */
  namesOrderNatively: boolean;
}

/** The registry's tools by registry-wide number, memoised on the index (built on the first search that needs it). */
export function flatTools(index: RegistryIndex): FlatTools {
  let flat = index.flat;
  if (!flat) {
    const tools: RegisteredTool[] = new Array(index.size);
    const names: string[] = new Array(index.size);
    let namesOrderNatively = true;
    for (const s of index.servers) {
      const list = s.index.tools;
      for (let d = 0; d < list.length; d++) {
        tools[s.offset + d] = list[d]!;
        names[s.offset + d] = list[d]!.wireName;
      }
      namesOrderNatively &&= s.index.namesOrderNatively;
    }
    flat = { tools, names, namesOrderNatively };
    index.flat = flat;
  }
  return flat;
}

/** One extension's index and where its tools start in the registry-wide numbering. */
export interface IndexedServer {
  ext: ExtensionState;
  index: ServerIndex;
  offset: number;
}

/**
 * S1: the search index of a registry: each extension's own index (rebuilt only when that
 * extension's tools change), in key order. Derived from the
 * registry's events alone, memoised per (immutable) extensions map.
 */
export interface RegistryIndex {
  servers: readonly IndexedServer[];
  /** Tools indexed (every extension's registered tools). */
  size: number;
  /** Per term: the servers whose tools have it (with its postings) and how many tools do; filled as queries ask. */
  terms: Map<string, TermHits>;
  /** Per query concept (its terms and weights): its hits (`conceptHits`); filled as queries ask. */
  concepts: Map<string, ConceptHits>;
  /** Memo of `flatTools`. */
  flat?: FlatTools;
}

const cache = new WeakMap<object, RegistryIndex>();

export function registryIndex(state: State): RegistryIndex {
  let index = cache.get(state.extensions);
  if (!index) {
    index = buildRegistryIndex(state);
    cache.set(state.extensions, index);
  }
  return index;
}

function buildRegistryIndex(state: State): RegistryIndex {
  const servers: IndexedServer[] = [];
  let size = 0;
  for (const ext of listExtensions(state)) {
    if (ext.tools.length === 0) continue;
    const index = serverIndex(ext.tools);
    servers.push({ ext, index, offset: size });
    size += ext.tools.length;
  }
  return { servers, size, terms: new Map(), concepts: new Map() };
}
