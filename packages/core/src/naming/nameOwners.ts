import { type HashDict, hget, hremove, hset } from "../fold/hashDict.js";
import { type Dict, get, setOwn } from "../fold/records.js";
import type { ExtensionState, RegisteredTool, State } from "../fold/state.js";
import { sortBytewise } from "./compareBytes.js";
import { findTool } from "./findTool.js";
import { deriveWireName, fitsWire } from "./wireName.js";

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

const sortedViews = new WeakMap<readonly RegisteredTool[], readonly RegisteredTool[]>();

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

/** The built-in tool's name (D4): no registry tool may be served under it. */
const BUILTIN_NAME = "enable_tools";

/**
 * R14: the wire name of each tool of one fetch (in the server's order).
 * A name in `preferred` (by raw name: the event's record, or the decider's earlier choice)
 * is used when it is a valid wire name and free; otherwise a public name that fits `limit`
 * stays as it is; otherwise a name is derived, re-hashed past any name already taken. A
 * name is taken when another public name is served under it or produces it, in the registry
 * or in this fetch, so served names stay unique and each resolves to one public name.
 */
export function assignWireNames(
  extensions: HashDict<ExtensionState>,
  unprefixed: readonly string[],
  wireIndex: HashDict<string>,
  ext: Pick<ExtensionState, "key" | "exposeUnprefixed">,
  tools: readonly RegisteredTool[],
  preferred: ReadonlyMap<string, string> | null,
  limit: number,
): string[] {
  // Names that already fit are claimed first: they stay unchanged unless taken elsewhere.
  const local = new Map<string, string>();
  for (const t of tools) if (fitsWire(t.publicName)) local.set(t.publicName, t.publicName);
  const free = (wire: string, publicName: string): boolean =>
    (local.get(wire) ?? publicName) === publicName &&
    (hget(wireIndex, wire) ?? publicName) === publicName &&
    (wire === publicName || ownersOf(extensions, unprefixed, wire).length === 0) &&
    (wire !== BUILTIN_NAME || publicName === BUILTIN_NAME);
  const key = ext.exposeUnprefixed ? null : ext.key;
  const wires: string[] = [];
  for (const t of tools) {
    const wanted = preferred?.get(t.rawName);
    let wire: string | undefined;
    if (wanted !== undefined && fitsWire(wanted, limit) && free(wanted, t.publicName))
      wire = wanted;
    else if (fitsWire(t.publicName, limit) && free(t.publicName, t.publicName)) wire = t.publicName;
    for (let attempt = 0; wire === undefined; attempt++) {
      const candidate = deriveWireName(t.publicName, key, limit, attempt);
      if (free(candidate, t.publicName)) wire = candidate;
    }
    wires.push(wire);
    local.set(wire, t.publicName);
  }
  return wires;
}

/** Whether any tool of the list is served under a name other than its public name. */
export function hasRenamed(tools: readonly RegisteredTool[] | undefined): boolean {
  if (tools) for (const t of tools) if (t.wireName !== t.publicName) return true;
  return false;
}

/**
 * R14: the wire index after one extension's tools changed from `before` to `after`: entries
 * of renamed tools it lost go (unless another extension's tool still uses them), its new
 * ones come in.
 */
export function updateWireIndex(
  wireIndex: HashDict<string>,
  extensions: HashDict<ExtensionState>,
  unprefixed: readonly string[],
  key: string,
  before: readonly RegisteredTool[],
  after: readonly RegisteredTool[],
): HashDict<string> {
  let index = wireIndex;
  for (const t of before) {
    if (t.wireName === t.publicName) continue;
    const stillUsed = ownersOf(extensions, unprefixed, t.publicName).some(
      (owner) =>
        owner !== key && findTool(hget(extensions, owner)!, t.publicName)?.wireName === t.wireName,
    );
    if (!stillUsed) index = hremove(index, t.wireName);
  }
  for (const t of after)
    if (t.wireName !== t.publicName) index = hset(index, t.wireName, t.publicName);
  return index;
}

/** R14: the registered tool served under `wireName`, if any (public name first, as R13 asks). */
export function wireWinner(state: State, wireName: string): RegisteredTool | undefined {
  const publicName = hget(state.wireNames, wireName) ?? wireName;
  const tool = winnerOf(state, publicName);
  return tool && tool.wireName === wireName ? tool : undefined;
}
