import type { ToolledgerEvent } from "@toolledger/core";
import { conversationStreamOf } from "../session/conversationEntries.js";
import type { LogEntry } from "../session/logEntry.js";
import type { ViewData, ViewEntry } from "./viewData.js";

/**
 * The log as the page receives it. Tools that refetches repeat are sent once: a
 * `ToolsFetched` event carries indexes into the shared `tools` instead.
 */
export function toViewEntries(
  entries: readonly LogEntry[],
  options: { intern?: boolean; streams?: string[] } = {},
): Pick<ViewData, "entries" | "streams" | "tools"> {
  // The conversation's own stream first: the page tells its events from the registry's by it.
  const conversation = conversationStreamOf(entries);
  const streams: string[] = options.streams ?? (conversation === null ? [] : [conversation]);
  const streamIndex = new Map<string, number>(streams.map((s, i) => [s, i]));
  const intern = options.intern ?? true;
  const toolIndex = new Map<string, number>();
  const tools: unknown[] = [];
  const out = entries.map((entry): ViewEntry => {
    const v: ViewEntry = { p: entry.position, e: entry.event };
    if (entry.label !== undefined) v.l = entry.label;
    if (entry.streamId !== undefined) {
      let s = streamIndex.get(entry.streamId);
      if (s === undefined) {
        s = streams.length;
        streams.push(entry.streamId);
        streamIndex.set(entry.streamId, s);
      }
      v.s = s;
    }
    if (entry.streamPosition !== undefined) v.sp = entry.streamPosition;
    if (entry.globalPosition !== undefined) v.g = entry.globalPosition;
    if (entry.recordedAt !== undefined) v.t = entry.recordedAt;
    const event = entry.event;
    if (intern && event.type === "ToolsFetched") {
      v.k = event.tools.map((tool) => {
        const key = JSON.stringify(tool);
        let i = toolIndex.get(key);
        if (i === undefined) {
          i = tools.length;
          tools.push(tool);
          toolIndex.set(key, i);
        }
        return i;
      });
      const { tools: _listed, ...rest } = event;
      v.e = rest;
    }
    return v;
  });
  return { entries: out, streams, tools };
}

/** The log entry back from the page's form (the inverse of `toViewEntries`). */
export function fromViewEntry(v: ViewEntry, data: Pick<ViewData, "streams" | "tools">): LogEntry {
  const event = (
    v.k === undefined ? v.e : { ...v.e, tools: v.k.map((i) => data.tools[i]) }
  ) as ToolledgerEvent;
  const entry: LogEntry = { position: v.p, event };
  if (v.l !== undefined) entry.label = v.l;
  if (v.s !== undefined) entry.streamId = data.streams[v.s]!;
  if (v.sp !== undefined) entry.streamPosition = v.sp;
  if (v.g !== undefined) entry.globalPosition = v.g;
  if (v.t !== undefined) entry.recordedAt = v.t;
  return entry;
}
