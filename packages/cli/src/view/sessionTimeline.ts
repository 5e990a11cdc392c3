import {
  EVENT_TYPES,
  evolve,
  initialState,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import {
  type AnyEvent,
  type DescribeContext,
  describeEvent,
  newDescribeContext,
  type Severity,
} from "./describeEvent.js";

/** One event as the page receives it: position, recording time, the event. */
export interface ViewEntry {
  p: number;
  t?: string;
  e: AnyEvent;
}

export interface TimelineRow {
  index: number;
  position: number;
  at: string | undefined;
  type: string;
  extensions: string[];
  text: string;
  severity: Severity;
  rules: string[];
  /** Index of the related event (the request of a response, the list change a refetch followed…). */
  related?: number;
  /** Indexes of the events that answered or followed this one (a request's response, a call's end). */
  followers?: number[];
}

/** Events between two kept states; scrubbing folds at most this many. */
export const CHECKPOINT_STRIDE = 256;

const KNOWN = new Set<string>(EVENT_TYPES);

/**
 * A session as the view reads it: every event described once as it is folded with the core
 * reducer, and the state after any prefix rebuilt from the nearest kept state, so a position's
 * state is exactly `replay --to` (the same `evolve` over the same events). Runs in the browser
 * and in Node.
 */
export class SessionTimeline {
  readonly entries: ViewEntry[] = [];
  readonly rows: TimelineRow[] = [];
  /** `checkpoints[k]` is the state after the first `k * CHECKPOINT_STRIDE` events. */
  private readonly checkpoints: State[] = [initialState()];
  private state: State = initialState();
  private readonly ctx: DescribeContext = newDescribeContext();

  constructor(entries: readonly ViewEntry[] = []) {
    this.append(entries);
  }

  get length(): number {
    return this.entries.length;
  }

  /** The state after every event so far. */
  get last(): State {
    return this.state;
  }

  /** Folds and describes more events (live sessions grow). */
  append(entries: readonly ViewEntry[]): void {
    for (const entry of entries) {
      const index = this.entries.length;
      const before = this.state;
      const after = foldOne(before, entry.e);
      const d = describeEvent(entry.e, index, before, after, this.ctx);
      const row: TimelineRow = {
        index,
        position: entry.p,
        at: entry.t ?? (typeof entry.e.at === "string" ? entry.e.at : undefined),
        type: entry.e.type,
        extensions: d.extensions,
        text: d.text,
        severity: d.severity,
        rules: d.rules,
      };
      if (d.related !== undefined) {
        row.related = d.related;
        const source = this.rows[d.related];
        if (source) {
          source.followers ??= [];
          source.followers.push(index);
        }
      }
      this.entries.push(entry);
      this.rows.push(row);
      this.state = after;
      if (this.entries.length % CHECKPOINT_STRIDE === 0) this.checkpoints.push(after);
    }
  }

  /** The state after the first `count` events (0: the initial state). */
  stateAfter(count: number): State {
    if (count < 0 || count > this.entries.length)
      throw new RangeError(`no state after ${count} of ${this.entries.length} events`);
    if (count === this.entries.length) return this.state;
    const k = Math.floor(count / CHECKPOINT_STRIDE);
    let state = this.checkpoints[k]!;
    for (let i = k * CHECKPOINT_STRIDE; i < count; i++) state = foldOne(state, this.entries[i]!.e);
    return state;
  }

  /** How many events have a position at or before `position` (what `replay --to position` folds). */
  countThrough(position: number): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid]!.p <= position) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** `evolve`, except that a kind this build's core does not know leaves the state as it was. */
export function foldOne(state: State, event: AnyEvent): State {
  return KNOWN.has(event.type) ? evolve(state, event as ToolledgerEvent) : state;
}
