import { hget, hvalues } from "./_hashDict.js";
import { get } from "./_records.js";
import { findTool } from "./_registry.js";
import { nameToKey } from "./nameToKey.js";
import type { ExtensionState, State } from "./state.js";

/** The extension with this display name or key (normalised with R1), if any. */
export function getExtension(state: State, nameOrKey: string): ExtensionState | undefined {
  return hget(state.extensions, nameToKey(nameOrKey));
}

/** Every extension, hidden ones included, sorted by key. */
export function listExtensions(state: State): ExtensionState[] {
  return hvalues(state.extensions).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** One extension's registered tool by public name (collision losers included). */
export { findTool };

/** R10: the extensions (keys, first one wins) that all produce `publicName`, when more than one does. */
export function collisionOwners(state: State, publicName: string): readonly string[] | undefined {
  return get(state.collisions, publicName);
}
