import type { ViewRule } from "./ruleCatalog.js";
import type { ViewEntry } from "./sessionTimeline.js";

/** `[count, received, deferralOff]`: the figure from the state after `count` events on. */
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
  entries: ViewEntry[];
  tokens: {
    tokenizer: string;
    /** How a tool definition is measured, for the page's legend. */
    definition: string;
    /** Only where the figure changes, in event order. */
    points: TokenPoint[];
  };
  rules: Record<string, ViewRule>;
  /** Set when the page is served by `serve --http`: where new events arrive. */
  live?: { events: string };
}

/** The element id of the embedded data. */
export const VIEW_DATA_ID = "toolledger-data";
