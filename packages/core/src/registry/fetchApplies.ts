import type { FetchScope } from "../events/events.js";
import type { ExtensionState, State } from "../fold/state.js";

/**
 * R11: whether a fetch of `ext` that started at `startedAtVersion` fills the cache. A fetch
 * scoped to its extension applies unless that extension was invalidated after it started; an
 * unscoped one only at exactly the current version. One from a newer version (a damaged log)
 * never applies.
 */
export function fetchApplies(
  state: State,
  ext: ExtensionState,
  startedAtVersion: number,
  scope: FetchScope | undefined,
): boolean {
  if (scope === "extension")
    return startedAtVersion >= ext.invalidatedAt && startedAtVersion <= state.version;
  return startedAtVersion === state.version;
}

/** R11: whether an extension needs fetching: never fetched, or its applied fetch went stale since. */
export function isStale(state: State, ext: ExtensionState): boolean {
  const version = ext.fetch.version;
  if (version === null) return true;
  return ext.fetch.scope === "extension" ? version < ext.invalidatedAt : version !== state.version;
}
