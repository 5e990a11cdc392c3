import { hget, hkeys } from "../fold/hashDict.js";
import type { ExtensionState, RegisteredTool, State } from "../fold/state.js";
import { sortBytewise } from "../naming/compareBytes.js";
import { isWinner, sortedTools } from "../naming/nameOwners.js";
import { nameToKey } from "../naming/nameToKey.js";

export interface ListToolsOptions {
  /** Keep only this extension's tools (name or key; normalised with R1). */
  extension?: string;
  /** Drop this extension's tools (name or key; normalised with R1). */
  exclude?: string;
  /** R8: include hidden extensions' tools (internal use only). */
  includeHidden?: boolean;
}

/**
 * R12: the registry's tools, byte-wise sorted by public name. With `extension` it reads only
 * that extension's tools.
 */
export function listTools(state: State, options: ListToolsOptions = {}): RegisteredTool[] {
  const includeHidden = options.includeHidden ?? false;
  const exclude = options.exclude === undefined ? undefined : nameToKey(options.exclude);
  if (options.extension !== undefined) {
    const key = nameToKey(options.extension);
    if (key === exclude) return [];
    const ext = hget(state.extensions, key);
    return ext ? extensionTools(state, ext, includeHidden) : [];
  }
  const all = allTools(state, includeHidden);
  return exclude === undefined ? [...all] : all.filter((t) => t.owner !== exclude);
}

/** The registered tools of one extension that won their public names, sorted. */
export function extensionTools(
  state: State,
  ext: ExtensionState,
  includeHidden: boolean,
): RegisteredTool[] {
  if (ext.hidden && !includeHidden) return [];
  const out: RegisteredTool[] = [];
  for (const tool of sortedTools(ext)) {
    if (isWinner(state, tool)) out.push(tool);
  }
  return out;
}

type Sorted = { visible?: readonly RegisteredTool[]; all?: readonly RegisteredTool[] };
const sortedCache = new WeakMap<object, WeakMap<object, Sorted>>();

/**
 * Every winning tool, sorted; memoised per registry (the extensions and collisions objects
 * are immutable, so their identities are a sound cache key).
 */
function allTools(state: State, includeHidden: boolean): readonly RegisteredTool[] {
  let byCollisions = sortedCache.get(state.extensions);
  if (!byCollisions) {
    byCollisions = new WeakMap();
    sortedCache.set(state.extensions, byCollisions);
  }
  let sorted = byCollisions.get(state.collisions);
  if (!sorted) {
    sorted = {};
    byCollisions.set(state.collisions, sorted);
  }
  const slot = includeHidden ? "all" : "visible";
  const cached = sorted[slot];
  if (cached) return cached;
  const out: RegisteredTool[] = [];
  for (const key of hkeys(state.extensions)) {
    out.push(...extensionTools(state, hget(state.extensions, key)!, includeHidden));
  }
  sortBytewise(out, (t) => t.publicName);
  sorted[slot] = out;
  return out;
}
