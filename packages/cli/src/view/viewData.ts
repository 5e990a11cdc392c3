import type { ViewRule } from "./ruleCatalog.js";

/** One stored event as the page receives it. */
export interface ViewEntry {
  /** Position in its stream. */
  p: number;
  /** Position in the whole store (global order, C1); the stream position for a JSONL log. */
  g: number;
  /** When the store recorded it. */
  t?: string;
  e: { type: string } & Record<string, unknown>;
  /**
   * A `ToolsFetched` event comes without its `tools`; `k` lists their indexes in
   * `ViewData.tools` (refetches repeat the same tools: a long session shrinks severalfold).
   */
  k?: number[];
}

/** A stream the session's fold reads. */
export interface ViewStream {
  id: string;
  events: ViewEntry[];
}

/** `[count, received, deferralOff]`: the figure from the state after `count` steps on. */
export type TokenPoint = [count: number, received: number, deferralOff: number];

/** Everything the page needs, embedded in it as JSON. */
export interface ViewData {
  format: 1;
  /** The session id, or the file name of a JSONL log. */
  title: string;
  /** Where the events came from (`session … in <db>`, or the file). */
  source: string;
  generatedAt: string;
  /** The toolledger version that wrote the page. */
  version: string;
  /**
   * The session's stream first (a conversation, a legacy session or a log file), then the
   * registry streams a conversation observes (C1): the page folds them as `replay` does.
   */
  streams: ViewStream[];
  /** How many steps the fold of `streams` has (registry events a conversation did not see are not steps). */
  steps: number;
  /** Every distinct tool object the fetches listed. */
  tools: unknown[];
  tokens: {
    tokenizer: string;
    /** How a tool definition is measured, for the page's legend. */
    definition: string;
    /** Only where the figure changes, in step order. */
    points: TokenPoint[];
  };
  rules: Record<string, ViewRule>;
}

/** The element id of the embedded data. */
export const VIEW_DATA_ID = "toolledger-data";

/** Puts the shared tools back into a `ToolsFetched` event (the inverse of the builder's interning). */
export function restoreEntry(entry: ViewEntry, tools: readonly unknown[]): ViewEntry {
  if (entry.k === undefined) return entry;
  const { k, ...rest } = entry;
  return { ...rest, e: { ...entry.e, tools: k.map((i) => tools[i]) } };
}
