import { initialState, type State } from "@toolledger/core";
import type { FoldedEntry } from "../session/foldEntries.js";
import type { LogEntry } from "../session/logEntry.js";
import { describeEvent } from "./describeEvent.js";
import { type DescribeContext, newDescribeContext, type Severity } from "./eventDescription.js";

export interface TimelineRow {
  index: number;
  /** The position `replay` prints and `replay --to` takes. */
  position: number;
  /** How replay shows it when it is not the conversation's own position (`h12`). */
  label: string;
  /** The stream it belongs to, for logs of more than one (C1). */
  stream: string | undefined;
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

/**
 * A session as the view reads it: every step of its fold described once, with the state
 * after it kept, so a position's state is exactly what `replay --to` folds (the same core
 * fold over the same events). Runs in the browser and in Node.
 */
export class SessionTimeline {
  readonly entries: LogEntry[] = [];
  readonly rows: TimelineRow[] = [];
  /** `states[i]` is the state after step `i + 1` (states share structure: a step costs what it changed). */
  private readonly states: State[] = [];
  private readonly ctx: DescribeContext = newDescribeContext();
  private readonly initial = initialState();

  get length(): number {
    return this.entries.length;
  }

  /** Describes more steps (the fold runs in slices; live sessions grow). */
  append(steps: Iterable<Pick<FoldedEntry, "entry" | "state">>): void {
    for (const { entry, state } of steps) {
      const index = this.entries.length;
      const before = this.stateAfter(index);
      const d = describeEvent(entry.event as never, index, before, state, this.ctx);
      const row: TimelineRow = {
        index,
        position: entry.position,
        label: entry.label ?? String(entry.position),
        stream: entry.streamId,
        at: entry.recordedAt ?? entry.event.at,
        type: entry.event.type,
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
      this.states.push(state);
    }
  }

  /** How many steps have a position at or before `position` (what `replay --to position` folds). */
  countThrough(position: number): number {
    let lo = 0;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.rows[mid]!.position <= position) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The state after the first `count` steps (0: the initial state). */
  stateAfter(count: number): State {
    if (count < 0 || count > this.states.length)
      throw new RangeError(`no state after ${count} of ${this.states.length} steps`);
    return count === 0 ? this.initial : this.states[count - 1]!;
  }
}
