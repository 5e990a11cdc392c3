import type { ExtensionState, RegisteredTool } from "../fold/state.js";

const indexes = new WeakMap<readonly RegisteredTool[], ReadonlyMap<string, RegisteredTool>>();

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
