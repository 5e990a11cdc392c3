import { hget, hvalues } from "../fold/hashDict.js";
import type { ExtensionState, State } from "../fold/state.js";
import { nameToKey } from "../naming/nameToKey.js";

/** The extension with this display name or key (normalised with R1), if any. */
export function getExtension(state: State, nameOrKey: string): ExtensionState | undefined {
  return hget(state.extensions, nameToKey(nameOrKey));
}

/** Every extension, hidden ones included, sorted by key. */
export function listExtensions(state: State): ExtensionState[] {
  return hvalues(state.extensions).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
