import type { State } from "../fold/state.js";
import type { DeferralStrategy } from "./deferralStrategy.js";
import { modelView } from "./modelView.js";

const cache = new WeakMap<
  object,
  WeakMap<object, WeakMap<object, WeakMap<object, DeferralStrategy>>>
>();

function level<T extends WeakKey>(map: WeakMap<object, T>, key: object): T {
  let next = map.get(key);
  if (next === undefined) {
    next = new WeakMap() as unknown as T;
    map.set(key, next);
  }
  return next;
}

/**
 * S1: the strategy the model is served now. Only `auto` depends on the registry; its answer is
 * memoised per registry, deferral config and enabled set, so a call (whose events make a new
 * state that keeps all four) never recomputes the model view.
 */
export function currentStrategy(state: State): DeferralStrategy {
  const mode = state.deferral.mode;
  if (mode !== "auto") return mode;
  const slot = level(level(level(cache, state.extensions), state.collisions), state.deferral);
  let strategy = slot.get(state.enabled);
  if (strategy === undefined) {
    strategy = modelView(state).strategy;
    slot.set(state.enabled, strategy);
  }
  return strategy;
}
