import type { EnableError, ToolledgerEventInput } from "../src/events/events.js";
import type { EventToAppend } from "../src/store/eventStore.js";

/** Event builders for the store's tests (E1 inputs, as an appender writes them). */
export const ev = {
  added: (name: string): ToolledgerEventInput => ({
    type: "ExtensionAdded",
    v: 1,
    name,
    kind: "stdio",
    configFingerprint: `fp:${name}`,
  }),
  fetched: (
    extension: string,
    startedAtVersion: number,
    tools: string[],
  ): ToolledgerEventInput => ({
    type: "ToolsFetched",
    v: 1,
    extension,
    startedAtVersion,
    tools: tools.map((name) => ({ name, inputSchema: { type: "object" } })),
  }),
  invalidated: (extension: string): ToolledgerEventInput => ({
    type: "ToolsInvalidated",
    v: 1,
    extension,
  }),
  requested: (callId: string, names: string[], at?: string): ToolledgerEventInput => ({
    type: "EnableToolsRequested",
    v: 1,
    callId,
    names,
    ...(at === undefined ? {} : { at }),
  }),
  responded: (
    callId: string,
    ok: boolean,
    at?: string,
    error?: EnableError,
  ): ToolledgerEventInput => ({
    type: "EnableToolsResponded",
    v: 1,
    callId,
    ok,
    ...(at === undefined ? {} : { at }),
    ...(error === undefined ? {} : { error }),
  }),
  cleared: (at?: string): ToolledgerEventInput => ({
    type: "Cleared",
    v: 1,
    ...(at === undefined ? {} : { at }),
  }),
  compacted: (
    enabled: string[],
    pending: { callId: string; names: string[] }[] = [],
    answered: string[] = [],
  ): ToolledgerEventInput => ({ type: "Compacted", v: 1, enabled, pending, answered }),
};

let counter = 0;

/** Wraps events with fresh, unique event ids. */
export function withIds(events: ToolledgerEventInput[]): EventToAppend[] {
  return events.map((event) => ({ eventId: `t${counter++}`, event }));
}
