import { hvalues } from "../fold/hashDict.js";
import type { State } from "../fold/state.js";
import { isStale } from "./fetchApplies.js";

/** R11: keys (sorted) of extensions whose latest applied fetch is stale (see `isStale`). */
export function staleExtensions(state: State): string[] {
  const out: string[] = [];
  for (const ext of hvalues(state.extensions)) {
    if (isStale(state, ext)) out.push(ext.key);
  }
  return out.sort();
}
