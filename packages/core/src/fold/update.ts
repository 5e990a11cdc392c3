import type { State } from "./state.js";

/**
 * A copy of `state` with `changes`. Written out field by field: V8 copies an object literal
 * of known shape ~20x faster than `{ ...state, field }`, and this runs once per event.
 */
export function update(state: State, changes: Partial<State>): State {
  return {
    reducerVersion: state.reducerVersion,
    ownerMetaKey: state.ownerMetaKey,
    version: changes.version ?? state.version,
    extensions: changes.extensions ?? state.extensions,
    unprefixed: changes.unprefixed ?? state.unprefixed,
    wireNames: changes.wireNames ?? state.wireNames,
    collisions: changes.collisions ?? state.collisions,
    deferral: changes.deferral ?? state.deferral,
    enabled: changes.enabled ?? state.enabled,
    pending: changes.pending ?? state.pending,
    answered: changes.answered ?? state.answered,
    anomalies: changes.anomalies ?? state.anomalies,
    anomalyCount: changes.anomalyCount ?? state.anomalyCount,
    ignored: changes.ignored ?? state.ignored,
    ignoredCount: changes.ignoredCount ?? state.ignoredCount,
    host: changes.host ?? state.host,
    conversation: changes.conversation ?? state.conversation,
    calls: changes.calls ?? state.calls,
    pinning: changes.pinning ?? state.pinning,
    tasks: changes.tasks ?? state.tasks,
  };
}
