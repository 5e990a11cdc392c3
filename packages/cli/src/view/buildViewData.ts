import { initialState } from "@toolledger/core";
import { TOKENIZER } from "../contextTokens.js";
import type { LogEntry } from "../logEntry.js";
import { ContextTokenSeries } from "./contextTokenSeries.js";
import type { ViewRule } from "./ruleCatalog.js";
import { foldOne, type ViewEntry } from "./sessionTimeline.js";
import type { ViewData } from "./viewData.js";

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

/** A log entry as the page receives it. */
export function toViewEntry(entry: LogEntry): ViewEntry {
  return {
    p: entry.position,
    ...(entry.recordedAt === undefined ? {} : { t: entry.recordedAt }),
    e: entry.event,
  };
}

/** Shares tools that refetches repeat: each distinct tool is sent once. */
function internTools(entries: readonly LogEntry[]): Pick<ViewData, "entries" | "tools"> {
  const index = new Map<string, number>();
  const tools: unknown[] = [];
  const out = entries.map((entry) => {
    const view = toViewEntry(entry);
    const event = entry.event;
    if (event.type !== "ToolsFetched") return view;
    const k = event.tools.map((tool) => {
      const key = JSON.stringify(tool);
      let i = index.get(key);
      if (i === undefined) {
        i = tools.length;
        tools.push(tool);
        index.set(key, i);
      }
      return i;
    });
    const { tools: _listed, ...rest } = event;
    return { ...view, e: rest, k };
  });
  return { entries: out, tools };
}

/** The page's data: the events, and the token figure folded over them. */
export function buildViewData(entries: readonly LogEntry[], options: ViewDataOptions): ViewData {
  const series = new ContextTokenSeries();
  let state = initialState();
  series.add(0, state);
  for (let i = 0; i < entries.length; i++) {
    state = foldOne(state, entries[i]!.event);
    series.add(i + 1, state);
  }
  return {
    format: 1,
    title: options.title,
    source: options.source,
    generatedAt: options.now.toISOString(),
    version: options.version,
    ...internTools(entries),
    tokens: { tokenizer: TOKENIZER, definition: TOKEN_DEFINITION, points: series.points },
    rules: options.rules,
    ...(options.live === undefined ? {} : { live: options.live }),
  };
}
