import { hremove, hset } from "../fold/hashDict.js";
import type { ExtensionState, RegisteredTool, State } from "../fold/state.js";
import { update } from "../fold/update.js";
import { hasRenamed, updateCollisions, updateWireIndex } from "../naming/nameOwners.js";

/** An extension added, replaced or removed, with the indexes its tools are in (R10, R14). */
export function replaceExtension(
  state: State,
  key: string,
  before: ExtensionState | undefined,
  after: ExtensionState | undefined,
  version: number,
): State {
  const extensions = after ? hset(state.extensions, key, after) : hremove(state.extensions, key);
  const wasUnprefixed = before?.exposeUnprefixed ?? false;
  const isUnprefixed = after?.exposeUnprefixed ?? false;
  let unprefixed = state.unprefixed;
  if (wasUnprefixed && !isUnprefixed) unprefixed = unprefixed.filter((k) => k !== key);
  if (!wasUnprefixed && isUnprefixed) unprefixed = [...unprefixed, key].sort();
  const collisions =
    wasUnprefixed === isUnprefixed && sameNames(before?.tools, after?.tools)
      ? state.collisions
      : updateCollisions(state.collisions, extensions, unprefixed, changedNames(before, after));
  const wireNames =
    hasRenamed(before?.tools) || hasRenamed(after?.tools)
      ? updateWireIndex(
          state.wireNames,
          extensions,
          unprefixed,
          key,
          before?.tools ?? [],
          after?.tools ?? [],
        )
      : state.wireNames;
  return update(state, { version, extensions, unprefixed, collisions, wireNames });
}

/** Only names an extension gained or lost can change owner lists (R10). */
function changedNames(
  before: ExtensionState | undefined,
  after: ExtensionState | undefined,
): Set<string> {
  const touched = new Set<string>();
  const had = new Set<string>();
  for (const t of before?.tools ?? []) had.add(t.publicName);
  for (const t of after?.tools ?? []) {
    if (had.has(t.publicName)) had.delete(t.publicName);
    else touched.add(t.publicName);
  }
  for (const name of had) touched.add(name);
  return touched;
}

/** The same public names in the same order: a refetch of an unchanged list (the common case). */
function sameNames(
  a: readonly RegisteredTool[] | undefined,
  b: readonly RegisteredTool[] | undefined,
): boolean {
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.publicName !== b[i]!.publicName) return false;
  return true;
}
