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
  /**
   * The events; a `ToolsFetched` event comes without its `tools`, and `k` lists their indexes
   * in `tools` instead (refetches repeat the same tools: a long session shrinks severalfold).
   */
  entries: (ViewEntry & { k?: number[] })[];
  /** Every distinct tool object the fetches listed. */
  tools: unknown[];
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

/** Puts the shared tools back into the `ToolsFetched` events (the inverse of the builder's interning). */
export function restoreEntry(
  entry: ViewEntry & { k?: number[] },
  tools: readonly unknown[],
): ViewEntry {
  if (entry.k === undefined) return entry;
  const { k, ...rest } = entry;
  return { ...rest, e: { ...entry.e, tools: k.map((i) => tools[i]) } };
}
