import type { ExtensionState, State } from "../fold/state.js";
import { listExtensions } from "../registry/extensions.js";
import { type Postings, type ServerIndex, serverIndex } from "./serverIndex.js";

/** One term across the registry: its document frequency and each server's postings of it. */
export interface TermHits {
  df: number;
  servers: { server: IndexedServer; postings: Postings }[];
}

/** S1: a term's hits, memoised on the (immutable) index. */
export function termHits(index: RegistryIndex, term: string): TermHits {
  let hits = index.terms.get(term);
  if (!hits) {
    hits = { df: 0, servers: [] };
    for (const server of index.servers) {
      const postings = server.index.postings.get(term);
      if (!postings) continue;
      hits.df += postings.docs.length;
      hits.servers.push({ server, postings });
    }
    if (index.terms.size > 10_000) index.terms.clear();
    index.terms.set(term, hits);
  }
  return hits;
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
  return { servers, size, terms: new Map() };
}
