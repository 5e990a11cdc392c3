import type { State } from "../fold/state.js";

/** S1: what the model is offered while deferral is on: the names list (lookup) or search. */
export type DeferralStrategy = "off" | "lookup" | "search";

/**
 * S1 `auto`: the default token budget of the deferred-names section: about 1% of a 200k
 * context, 150–250 typical tool names. Above it, `auto` searches instead of listing.
 */
export const DEFAULT_DEFERRAL_BUDGET = 2_000;

/**
 * S1: the tokens a names section of these names would take, estimated as one token per three
 * characters (o200k_base gives 3.1–4.0 characters per token on lists of real tool names, so
 * the estimate errs high). An estimate, not a tokenizer: the core stays free of one, and the
 * same log always gives the same answer.
 */
export function estimateNamesTokens(names: readonly string[]): number {
  let chars = 120; // the section's heading and its one line of instructions
  for (const n of names) chars += n.length + 3;
  return Math.ceil(chars / 3);
}

/**
 * S1: the strategy of a state whose deferred names are `deferred`: `auto` is `lookup` while
 * the names fit its budget and `search` above it; the other modes are themselves.
 */
export function strategyFor(
  deferral: State["deferral"],
  deferred: readonly string[],
): DeferralStrategy {
  if (deferral.mode !== "auto") return deferral.mode;
  return estimateNamesTokens(deferred) <= (deferral.budget ?? DEFAULT_DEFERRAL_BUDGET)
    ? "lookup"
    : "search";
}
