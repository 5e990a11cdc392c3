import type { State } from "@toolledger/core";

/**
 * The same registry with deferral `lookup` (D1) and the state's own always-load list (D2):
 * what the model would have received, through the core's `modelView` (D4), had deferral been
 * on. The enabled set is the state's (with deferral off, usually empty).
 */
export function withDeferralLookup(state: State): State {
  return { ...state, deferral: { mode: "lookup", alwaysLoad: state.deferral.alwaysLoad } };
}
