import {
  type Command,
  decide,
  evolve,
  initialState,
  type McpTool,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import type { LogEntry } from "../src/session/logEntry.js";

const schema = { type: "object", properties: {} };
const tool = (name: string, extra: Partial<McpTool> = {}): McpTool => ({
  name,
  inputSchema: schema,
  ...extra,
});

/**
 * A session that exercises every kind of change the CLI reports: collisions (R10), hidden
 * extensions (R8), an app-only tool (D3), a filter (R9), a stale fetch (R11), always-load
 * (D2), a successful and a failed enable (D5/D6), an orphan response, compaction (D7),
 * clear (D8), a removal (R7), a failed fetch, and a rename (R3: `exposeUnprefixed` toggled).
 */
export function sampleLog(): { entries: LogEntry[]; state: State } {
  let state = initialState();
  const events: ToolledgerEvent[] = [];
  const run = (command: Command) => {
    const d = decide(state, command);
    if (!d.ok) throw new Error(`${command.type}: ${d.error.message}`);
    for (const e of d.events) {
      events.push(e);
      state = evolve(state, e);
    }
  };
  const add = (name: string, extra: Partial<Extract<Command, { type: "AddExtension" }>> = {}) =>
    run({ type: "AddExtension", name, kind: "stdio", configFingerprint: `fp-${name}`, ...extra });
  run({
    type: "ConfigureDeferral",
    mode: "lookup",
    alwaysLoad: ["notes__list_notes", "ghost__tool"],
  }); // 1
  add("notes"); // 2
  add("a"); // 3
  add("a__b"); // 4
  add("_internal"); // 5
  add("Web Search", { availableTools: ["search"] }); // 6
  run({
    type: "RecordFetch",
    extension: "notes",
    startedAtVersion: 5,
    tools: [
      tool("add_note"),
      tool("list_notes"),
      tool("search_notes"),
      tool("board", { _meta: { ui: { visibility: ["app"] } } }),
    ],
  }); // 7
  run({ type: "RecordFetch", extension: "a", startedAtVersion: 5, tools: [tool("b__c")] }); // 8
  run({ type: "RecordFetch", extension: "a__b", startedAtVersion: 5, tools: [tool("c")] }); // 9
  run({
    type: "RecordFetch",
    extension: "_internal",
    startedAtVersion: 5,
    tools: [tool("secret")],
  }); // 10
  run({
    type: "RecordFetch",
    extension: "Web Search",
    startedAtVersion: 5,
    tools: [tool("search"), tool("crawl")],
  }); // 11
  run({ type: "RecordFetch", extension: "notes", startedAtVersion: 4, tools: [] }); // 12: stale
  run({ type: "EnableTools", callId: "call-1", names: ["notes__add_note"] }); // 13, 14
  run({ type: "EnableTools", callId: "call-2", names: ["notes__search_notes", "notes__nope"] }); // 15, 16
  run({ type: "Compact" }); // 17
  run({ type: "Clear" }); // 18
  run({ type: "EnableTools", callId: "call-3", names: ["notes__search_notes"] }); // 19, 20
  events.push({ type: "EnableToolsResponded", v: 1, callId: "orphan", ok: true }); // 21
  state = evolve(state, events.at(-1)!);
  run({ type: "RemoveExtension", extension: "a__b" }); // 22
  add("flaky"); // 23
  run({
    type: "RecordFetchFailure",
    extension: "flaky",
    startedAtVersion: 7,
    error: "connection closed",
  }); // 24
  add("shell"); // 25
  run({ type: "RecordFetch", extension: "shell", startedAtVersion: 8, tools: [tool("run")] }); // 26
  add("shell", { exposeUnprefixed: true }); // 27: replaced
  run({ type: "RecordFetch", extension: "shell", startedAtVersion: 9, tools: [tool("run")] }); // 28: renamed
  return { entries: events.map((event, i) => ({ position: i + 1, event })), state };
}

export function toJsonl(entries: readonly LogEntry[]): string {
  return `${entries.map((e) => JSON.stringify(e.event)).join("\n")}\n`;
}
