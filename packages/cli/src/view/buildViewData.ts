import { initialState } from "@toolledger/core";
import { TOKENIZER } from "../output/contextTokens.js";
import { foldEntries } from "../session/foldEntries.js";
import type { LogEntry } from "../session/logEntry.js";
import { ContextTokenSeries } from "./contextTokenSeries.js";
import type { ViewRule } from "./ruleCatalog.js";
import type { TokenPoint, ViewData } from "./viewData.js";
import { toViewEntries } from "./viewEntries.js";

export const TOKEN_DEFINITION =
  "each tool as compact JSON {name, description, input_schema}, plus the deferred-names prompt section";

export interface ViewDataOptions {
  title: string;
  source: string;
  version: string;
  now: Date;
  rules: Record<string, ViewRule>;
  live?: { events: string };
}

/** The token figure at every step of the log's fold (the fold `replay` runs), and the step count. */
export function tokenSeries(entries: readonly LogEntry[]): { points: TokenPoint[]; steps: number } {
  const series = new ContextTokenSeries();
  series.add(0, initialState());
  let count = 0;
  for (const step of foldEntries(entries)) series.add(++count, step.state);
  return { points: series.points, steps: count };
}

/** The page's data: the log, and the token figure at every step of its fold. */
export function buildViewData(entries: readonly LogEntry[], options: ViewDataOptions): ViewData {
  const { points, steps: count } = tokenSeries(entries);
  return {
    format: 1,
    title: options.title,
    source: options.source,
    generatedAt: options.now.toISOString(),
    version: options.version,
    steps: count,
    ...toViewEntries(entries),
    tokens: { tokenizer: TOKENIZER, definition: TOKEN_DEFINITION, points },
    rules: options.rules,
    ...(options.live === undefined ? {} : { live: options.live }),
  };
}
