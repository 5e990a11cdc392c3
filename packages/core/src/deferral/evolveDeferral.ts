import type {
  Anomaly,
  Cleared,
  Compacted,
  DeferralConfigured,
  EnableToolsRequested,
  EnableToolsResponded,
} from "../events/events.js";
import { emptyHashDict, hfromKeys, hhas, hset } from "../fold/hashDict.js";
import { appendBounded } from "../fold/ignore.js";
import { sameStrings } from "../fold/sameStrings.js";
import type { State } from "../fold/state.js";
import { update } from "../fold/update.js";
import { compareBytes, sortBytewise } from "../naming/compareBytes.js";

export type DeferralEvent =
  | DeferralConfigured
  | EnableToolsRequested
  | EnableToolsResponded
  | Compacted
  | Cleared;

/** A conversation's deferred loading (D1–D9): its mode, enable requests and responses, compactions, clears. */
export function evolveDeferral(state: State, event: DeferralEvent): State {
  switch (event.type) {
    case "DeferralConfigured":
      return deferralConfigured(state, event);
    case "EnableToolsRequested":
      return enableRequested(state, event);
    case "EnableToolsResponded":
      return enableResponded(state, event);
    case "Compacted":
      return compacted(state, event);
    case "Cleared":
      return cleared(state);
  }
}

function deferralConfigured(state: State, e: DeferralConfigured): State {
  if (
    e.mode === state.deferral.mode &&
    sameStrings(e.alwaysLoad, state.deferral.alwaysLoad) &&
    e.budget === state.deferral.budget
  ) {
    return state;
  }
  return update(state, {
    deferral: {
      mode: e.mode,
      alwaysLoad: e.alwaysLoad,
      ...(e.budget === undefined ? {} : { budget: e.budget }),
    },
  });
}

/** D6: a request waits for its response; only a successful paired response enables. */
function enableRequested(state: State, e: EnableToolsRequested): State {
  if (state.pending.some((p) => p.callId === e.callId)) {
    // A repeated call id while its request is pending: one response answers both.
    const pending = state.pending.map((p) =>
      p.callId === e.callId ? { callId: p.callId, names: [...p.names, ...e.names] } : p,
    );
    return update(state, { pending });
  }
  return update(state, { pending: [...state.pending, { callId: e.callId, names: e.names }] });
}

function enableResponded(state: State, e: EnableToolsResponded): State {
  const index = state.pending.findIndex((p) => p.callId === e.callId);
  if (hhas(state.answered, e.callId)) {
    // A call id is answered once: a later response adds nothing, even to a request that
    // reused the id (it ends that request, which no response can validly answer).
    const pending = index === -1 ? state.pending : state.pending.filter((_, i) => i !== index);
    return withAnomaly(update(state, { pending }), {
      kind: "duplicate_response",
      callId: e.callId,
    });
  }
  if (index === -1) {
    return withAnomaly(state, { kind: "response_without_request", callId: e.callId });
  }
  const request = state.pending[index]!;
  const pending = state.pending.filter((_, i) => i !== index);
  const answered = hset(state.answered, e.callId, true as const);
  if (!e.ok)
    return withAnomaly(update(state, { pending, answered }), {
      kind: "failed_response",
      callId: e.callId,
    });
  return update(state, { pending, answered, enabled: union(state.enabled, request.names) });
}

/** D7: the conversation-derived state is carried by the event, so replay can start here. */
function compacted(state: State, e: Compacted): State {
  const enabled = sortBytewise([...new Set(e.enabled)], (n) => n);
  const { pending, anomalies } = state;
  // A compaction of the current state changes nothing, so the reducer keeps the same object.
  const unchanged =
    sameStrings(enabled, state.enabled) &&
    e.pending.length === pending.length &&
    e.pending.every(
      (p, i) => p.callId === pending[i]!.callId && sameStrings(p.names, pending[i]!.names),
    ) &&
    e.answered.length === state.answered.size &&
    e.answered.every((id) => hhas(state.answered, id)) &&
    e.anomalyCount === state.anomalyCount &&
    e.anomalies.length === anomalies.length &&
    e.anomalies.every((a, i) => a.kind === anomalies[i]!.kind && a.callId === anomalies[i]!.callId);
  if (unchanged) return state;
  const answered = hfromKeys(e.answered, true as const);
  return update(state, {
    enabled,
    pending: e.pending,
    answered,
    anomalies: e.anomalies,
    anomalyCount: e.anomalyCount,
  });
}

/** D8: `/clear` empties the enabled set and pending requests; the registry is untouched. */
function cleared(state: State): State {
  if (state.enabled.length === 0 && state.pending.length === 0 && state.answered.size === 0) {
    return state;
  }
  return update(state, { enabled: [], pending: [], answered: emptyHashDict() });
}

function withAnomaly(state: State, anomaly: Anomaly): State {
  return update(state, {
    anomalies: appendBounded(state.anomalies, anomaly),
    anomalyCount: state.anomalyCount + 1,
  });
}

/**
 * Sorted, de-duplicated union; returns `base` itself when nothing is added. Binary-search
 * inserts into a copy: no set of the whole enabled list is built per response.
 */
function union(base: readonly string[], add: readonly string[]): readonly string[] {
  let out: string[] | null = null;
  for (const name of add) {
    const list = out ?? base;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareBytes(list[mid]!, name) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo < list.length && list[lo] === name) continue;
    out ??= base.slice();
    out.splice(lo, 0, name);
  }
  return out ?? base;
}
