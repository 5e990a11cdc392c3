import { initialState, type StoredEvent } from "@toolledger/core";
import { TOKENIZER } from "../contextTokens.js";
import type { LogEntry } from "../logEntry.js";
import { ContextTokenSeries } from "./contextTokenSeries.js";
import type { ViewRule } from "./ruleCatalog.js";
import type { ViewData, ViewEntry, ViewStream } from "./viewData.js";
import { viewSteps } from "./viewSteps.js";

export const TOKEN_DEFINITION =
  "each tool as compact JSON {name, description, input_schema}, plus the deferred-names prompt section";

export interface ViewDataOptions {
  title: string;
  source: string;
  version: string;
  now: Date;
  rules: Record<string, ViewRule>;
}

/** A stream as read from a store. */
export function storedStream(id: string, events: readonly StoredEvent[]): ViewStream {
  return {
    id,
    events: events.map((s) => ({
      p: s.streamPosition,
      g: s.globalPosition,
      t: s.recordedAt,
      e: s.event,
    })),
  };
}

/** A JSONL log as one stream (its order is the global order). */
export function logStream(id: string, entries: readonly LogEntry[]): ViewStream {
  return {
    id,
    events: entries.map((entry) => ({
      p: entry.position,
      g: entry.position,
      ...(entry.recordedAt === undefined ? {} : { t: entry.recordedAt }),
      e: entry.event,
    })),
  };
}

/** Shares tools that refetches repeat: each distinct tool is sent once. */
function internTools(streams: readonly ViewStream[]): Pick<ViewData, "streams" | "tools"> {
  const index = new Map<string, number>();
  const tools: unknown[] = [];
  const intern = (entry: ViewEntry): ViewEntry => {
    const event = entry.e;
    if (event.type !== "ToolsFetched" || !Array.isArray(event.tools)) return entry;
    const k = event.tools.map((tool: unknown) => {
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
    return { ...entry, e: rest as ViewEntry["e"], k };
  };
  return { streams: streams.map((s) => ({ id: s.id, events: s.events.map(intern) })), tools };
}

/** The page's data: the streams, and the token figure at every step of their fold. */
export function buildViewData(streams: readonly ViewStream[], options: ViewDataOptions): ViewData {
  const series = new ContextTokenSeries();
  series.add(0, initialState());
  let count = 0;
  for (const step of viewSteps(streams, [])) series.add(++count, step.state);
  return {
    format: 1,
    title: options.title,
    source: options.source,
    generatedAt: options.now.toISOString(),
    version: options.version,
    steps: count,
    ...internTools(streams),
    tokens: { tokenizer: TOKENIZER, definition: TOKEN_DEFINITION, points: series.points },
    rules: options.rules,
  };
}
