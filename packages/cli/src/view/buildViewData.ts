import { initialState } from "@toolledger/core";
import { TOKENIZER } from "../contextTokens.js";
import { foldEntries } from "../foldEntries.js";
import type { LogEntry } from "../logEntry.js";
import { ContextTokenSeries } from "./contextTokenSeries.js";
import type { ViewRule } from "./ruleCatalog.js";
import type { ViewData } from "./viewData.js";
import { toViewEntries } from "./viewEntries.js";

export const TOKEN_DEFINITION =
  "each tool as compact JSON {name, description, input_schema}, plus the deferred-names prompt section";

export interface ViewDataOptions {
  title: string;
  source: string;
  version: string;
  now: Date;
  rules: Record<string, ViewRule>;
}

/** The page's data: the log, and the token figure at every step of its fold (the fold `replay` runs). */
export function buildViewData(entries: readonly LogEntry[], options: ViewDataOptions): ViewData {
  const series = new ContextTokenSeries();
  series.add(0, initialState());
  let count = 0;
  for (const step of foldEntries(entries)) series.add(++count, step.state);
  return {
    format: 1,
    title: options.title,
    source: options.source,
    generatedAt: options.now.toISOString(),
    version: options.version,
    steps: count,
    ...toViewEntries(entries),
    tokens: { tokenizer: TOKENIZER, definition: TOKEN_DEFINITION, points: series.points },
    rules: options.rules,
  };
}
