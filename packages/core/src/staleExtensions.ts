import { hvalues } from "./_hashDict.js";
import type { State } from "./state.js";

/** R11: keys (sorted) of extensions whose latest applied fetch is not at the current version. */
export function staleExtensions(state: State): string[] {
  const out: string[] = [];
  for (const ext of hvalues(state.extensions)) {
    if (ext.fetch.version !== state.version) out.push(ext.key);
  }
  return out.sort();
}
