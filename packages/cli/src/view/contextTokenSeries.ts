import type { State } from "@toolledger/core";
import { contextTokens } from "../contextTokens.js";
import type { TokenPoint } from "./viewData.js";

/**
 * The token figure over a session, kept only where it changes. The figure depends on the
 * model view's inputs alone (extensions, collisions, deferral, enabled set): states that
 * share all four by identity are not measured again, so calls, invalidations and stale
 * fetches cost nothing here.
 */
export class ContextTokenSeries {
  readonly points: TokenPoint[] = [];
  private last: State | undefined;

  /** Records the figure of `state`, the state after the first `count` events. */
  add(count: number, state: State): void {
    const last = this.last;
    this.last = state;
    if (
      last !== undefined &&
      last.extensions === state.extensions &&
      last.collisions === state.collisions &&
      last.deferral === state.deferral &&
      last.enabled === state.enabled
    )
      return;
    const t = contextTokens(state);
    const prev = this.points.at(-1);
    if (prev && prev[1] === t.received && prev[2] === t.deferralOff) return;
    this.points.push([count, t.received, t.deferralOff]);
  }
}
