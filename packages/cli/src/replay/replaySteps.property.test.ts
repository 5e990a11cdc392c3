import {
  type Command,
  decide,
  evolve,
  initialState,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { LogEntry } from "../session/logEntry.js";
import { getExtension } from "../session/stateExtensions.js";
import { replaySteps } from "./replaySteps.js";

const EXTENSIONS = ["a", "a__b", "notes", "_hidden"];
const TOOLS = ["b__c", "c", "add", "list"];

const commandArb: fc.Arbitrary<(state: State) => Command> = fc.oneof(
  fc.record({ name: fc.constantFrom(...EXTENSIONS), unprefixed: fc.boolean() }).map(
    ({ name, unprefixed }) =>
      () =>
        ({
          type: "AddExtension",
          name,
          kind: "stdio",
          exposeUnprefixed: unprefixed,
          configFingerprint: `fp-${unprefixed}`,
        }) as Command,
  ),
  fc
    .constantFrom(...EXTENSIONS)
    .map((extension) => () => ({ type: "RemoveExtension", extension }) as Command),
  fc
    .constantFrom(...EXTENSIONS)
    .map((extension) => () => ({ type: "InvalidateTools", extension }) as Command),
  fc
    .record({
      extension: fc.constantFrom(...EXTENSIONS),
      tools: fc.subarray(TOOLS),
      stale: fc.boolean(),
    })
    .map(
      ({ extension, tools, stale }) =>
        (state: State) =>
          ({
            type: "RecordFetch",
            extension,
            startedAtVersion: Math.max(0, state.version - (stale ? 1 : 0)),
            tools: tools.map((name) => ({ name, inputSchema: { type: "object" } })),
          }) as Command,
    ),
  fc
    .record({
      callId: fc.constantFrom("c1", "c2", "c3"),
      names: fc.subarray(TOOLS.map((t) => `notes__${t}`)),
    })
    .map(
      ({ callId, names }) =>
        () =>
          ({ type: "EnableTools", callId, names }) as Command,
    ),
  fc.constant(() => ({ type: "ConfigureDeferral", mode: "lookup" }) as Command),
  fc.constant(() => ({ type: "Compact" }) as Command),
  fc.constant(() => ({ type: "Clear" }) as Command),
);

function buildLog(commands: ((state: State) => Command)[]): LogEntry[] {
  let state = initialState();
  const events: ToolledgerEvent[] = [];
  for (const make of commands) {
    const d = decide(state, make(state));
    if (!d.ok) continue;
    for (const e of d.events) {
      events.push(e);
      state = evolve(state, e);
    }
  }
  return events.map((event, i) => ({ position: i + 1, event }));
}

describe("replaySteps reports every change (E3)", () => {
  test("applying the reported tool and enabled-set changes rebuilds the state's tools and enabled set", () => {
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 40 }), (commands) => {
        const entries = buildLog(commands);
        const tools = new Map<string, Set<string>>();
        let enabled = new Set<string>();
        let n = 0;
        for (const { step, state } of replaySteps(entries)) {
          n++;
          for (const c of step.changes) {
            const set =
              "extension" in c ? (tools.get(c.extension) ?? new Set<string>()) : undefined;
            if (set && "extension" in c) tools.set(c.extension, set);
            if (c.kind === "tools_added") for (const name of c.names) set!.add(name);
            if (c.kind === "tools_removed") for (const name of c.names) set!.delete(name);
            if (c.kind === "tool_renamed") {
              set!.delete(c.from);
              set!.add(c.to);
            }
            if (c.kind === "extension_removed") tools.delete(c.extension);
            if (c.kind === "enabled") for (const name of c.names) enabled.add(name);
            if (c.kind === "disabled") for (const name of c.names) enabled.delete(name);
            if (c.kind === "compacted") enabled = new Set(c.enabled);
          }
          for (const [key, names] of tools) {
            const ext = getExtension(state, key);
            expect([...names].sort()).toEqual(ext ? ext.tools.map((t) => t.publicName).sort() : []);
          }
          expect([...enabled].sort()).toEqual([...state.enabled].sort());
        }
        expect(n).toBe(entries.length);
      }),
      { numRuns: 300 },
    );
  });
});
