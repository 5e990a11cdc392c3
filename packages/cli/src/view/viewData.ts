import type { ViewRule } from "./ruleCatalog.js";

/** One log entry as the page receives it (a `LogEntry` with short keys). */
export interface ViewEntry {
  /** Position as `replay` numbers it (a conversation's own position; a registry event shares the one it follows). */
  p: number;
  /** How replay shows the position when it is not the conversation's own (`h12`). */
  l?: string;
  /** Index of its stream in `ViewData.streams`, for logs of more than one stream (C1). */
  s?: number;
  /** Position in its stream. */
  sp?: number;
  /** Position in the whole store (global order). */
  g?: number;
  /** When it was recorded. */
  t?: string;
  e: { type: string } & Record<string, unknown>;
  /**
   * A `ToolsFetched` event comes without its `tools`; `k` lists their indexes in
   * `ViewData.tools` (refetches repeat the same tools: a long session shrinks severalfold).
   */
  k?: number[];
}

/**
 * `[count, received, deferralOff, lookup?]`: the figure from the state after `count` steps on;
 * `lookup`, only while deferral is off, is what deferral lookup would have sent (D4).
 */
export type TokenPoint = [count: number, received: number, deferralOff: number, lookup?: number];

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
  /** The log in the order `replay` reads it: a conversation with the registry events it observes (C1). */
  entries: ViewEntry[];
  /** How many steps the fold of `entries` has (a closed conversation ignores later registry events). */
  steps: number;
  /** Stream ids the entries refer to (the conversation's first). */
  streams: string[];
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
  /** Set when `serve --view` serves the page: where later events arrive (server-sent events). */
  live?: { events: string };
}

/** What the live page receives when the session grows. */
export interface LiveUpdate {
  /** The entries after the ones the page has, their stream indexes into `streams`. */
  entries: ViewEntry[];
  streams: string[];
  steps: number;
  /** The whole token series (it is short: one point per change). */
  points: TokenPoint[];
}

/** The element id of the embedded data (its first entries: see `splitViewData`). */
export const VIEW_DATA_ID = "toolledger-data";

/** The entries after the head and the tools they add, in the element after the page's script. */
export interface ViewRest {
  entries: ViewEntry[];
  tools: unknown[];
}

/** The element id of the rest of the data. */
export const VIEW_REST_ID = "toolledger-rest";
