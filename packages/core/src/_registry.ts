import { type HashDict, hget } from "./_hashDict.js";
import { type Dict, get, setOwn } from "./_records.js";
import { sortBytewise } from "./compareBytes.js";
import type { ExtensionState, RegisteredTool, State } from "./state.js";

/**
 * Owners (extension keys in R10 order: visible before hidden, then by key) whose tools
 * produce `publicName`. Without a
 * global index: a prefixed name can only come from an extension whose key ends right before
 * one of the name's `__` separators, or from an unprefixed extension; so the lookup costs
 * the name's length plus the number of unprefixed extensions, never the registry's size.
 */
export function ownersOf(
  extensions: HashDict<ExtensionState>,
  unprefixed: readonly string[],
  publicName: string,
): string[] {
  const owners: string[] = [];
  let i = publicName.indexOf("__");
  while (i !== -1) {
    const key = publicName.slice(0, i);
    const ext = hget(extensions, key);
    if (ext && !ext.exposeUnprefixed && findTool(ext, publicName)) owners.push(key);
    i = publicName.indexOf("__", i + 1);
  }
  for (const key of unprefixed) {
    const ext = hget(extensions, key);
    if (ext && findTool(ext, publicName)) owners.push(key);
  }
  if (owners.length > 1) owners.sort((a, b) => compareOwners(extensions, a, b));
  return owners;
}

/** R10: visible extensions before hidden ones, so a hidden one never takes a name away; then by key. */
function compareOwners(extensions: HashDict<ExtensionState>, a: string, b: string): number {
  const hiddenA = hget(extensions, a)?.hidden === true;
  const hiddenB = hget(extensions, b)?.hidden === true;
  if (hiddenA !== hiddenB) return hiddenA ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** R10: the tool that owns `publicName` in the registry (the first owner in R10 order wins). */
export function winnerOf(state: State, publicName: string): RegisteredTool | undefined {
  const collision = get(state.collisions, publicName);
  if (collision) {
    const ext = hget(state.extensions, collision[0]!);
    return ext ? findTool(ext, publicName) : undefined;
  }
  const owners = ownersOf(state.extensions, state.unprefixed, publicName);
  if (owners.length === 0) return undefined;
  return findTool(hget(state.extensions, owners[0]!)!, publicName);
}

/** Whether `tool` is the registry's entry for its public name (not a collision loser). */
export function isWinner(state: State, tool: RegisteredTool): boolean {
  const collision = get(state.collisions, tool.publicName);
  return collision === undefined || collision[0] === tool.owner;
}

/**
 * Recomputes the collision entries of `names` against `extensions`. Returns the same object
 * when nothing changed.
 */
export function updateCollisions(
  collisions: Dict<readonly string[]>,
  extensions: HashDict<ExtensionState>,
  unprefixed: readonly string[],
  names: Iterable<string>,
): Dict<readonly string[]> {
  let next: Record<string, readonly string[]> | null = null;
  for (const name of names) {
    const owners = ownersOf(extensions, unprefixed, name);
    const current = get(next ?? collisions, name);
    if (owners.length > 1) {
      if (current && sameList(current, owners)) continue;
      next ??= { ...collisions };
      setOwn(next, name, owners);
    } else if (current) {
      next ??= { ...collisions };
      delete next[name];
    }
  }
  return next ?? collisions;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

const indexes = new WeakMap<readonly RegisteredTool[], ReadonlyMap<string, RegisteredTool>>();
const sortedViews = new WeakMap<readonly RegisteredTool[], readonly RegisteredTool[]>();

/**
 * The extension's tool with this public name. The index is derived from the (immutable)
 * tools array and cached by its identity, so state stays plain JSON.
 */
export function findTool(ext: ExtensionState, publicName: string): RegisteredTool | undefined {
  let index = indexes.get(ext.tools);
  if (!index) {
    const built = new Map<string, RegisteredTool>();
    for (const t of ext.tools) built.set(t.publicName, t);
    indexes.set(ext.tools, built);
    index = built;
  }
  return index.get(publicName);
}

/**
 * The extension's tools byte-wise sorted by public name. Sorted on first use, not when
 * folding: a replayed log refetches far more often than anyone lists.
 */
export function sortedTools(ext: ExtensionState): readonly RegisteredTool[] {
  let sorted = sortedViews.get(ext.tools);
  if (!sorted) {
    sorted = sortBytewise([...ext.tools], (t) => t.publicName);
    sortedViews.set(ext.tools, sorted);
  }
  return sorted;
}
