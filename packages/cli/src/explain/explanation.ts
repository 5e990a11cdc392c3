export type ToolStatus =
  | "builtin"
  | "eager"
  | "deferred"
  | "enabled"
  | "app-only"
  | "hidden"
  | "lost-collision"
  | "filtered"
  | "rejected"
  | "removed"
  | "quarantined"
  | "unknown";

/** Where an event sits in the log: its position, or a registry event's label in a conversation's log (`h12`). */
export type Position = number | string;

export function byPosition(a: Position, b: Position): number {
  if (typeof a === typeof b)
    return typeof a === "number"
      ? (a as number) - (b as number)
      : String(a).localeCompare(String(b), "en", { numeric: true });
  return typeof a === "string" ? -1 : 1;
}

export interface Reason {
  /** The rule that decides it (R…, D…), as numbered in docs/rules.md. */
  rule: string;
  text: string;
  /** Positions of the events that decided it, in order. */
  positions: Position[];
}

export interface Explanation {
  /** The name as asked. */
  asked: string;
  /** The public name it stands for (after R13 recovery), when known. */
  publicName: string;
  /** R14: the name models are served, when the tool is registered (the public name when it fits). */
  wireName: string | null;
  extension: string | null;
  rawName: string | null;
  status: ToolStatus;
  /** One sentence. */
  summary: string;
  reasons: Reason[];
  /** For an unknown name: close public names. */
  suggestions: string[];
  /** C4: every recorded call of the tool, in order (empty for a log without calls). */
  calls: CallHistoryEntry[];
}

/** C4: one call of the explained tool, from the log. */
export interface CallHistoryEntry {
  callId: string;
  /** Where the call started (and finished) in the log. */
  position: number;
  finishedAt: number | null;
  outcome: string | null;
  reason: string | null;
  durationMs: number | null;
  error: string | null;
  /** C6: the task the call became, with every status it went through (null: a plain call). */
  task: CallTask | null;
}

/** An explanation before its wire name and calls are added. */
export type ToolExplanation = Omit<Explanation, "calls" | "wireName">;

/** C6: the task a call became (its runner: the server, or the gateway for a plain call). */
export interface CallTask {
  taskId: string;
  runner: string;
  requested: boolean;
  statuses: string[];
}
