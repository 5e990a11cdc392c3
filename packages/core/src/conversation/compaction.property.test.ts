import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Command } from "../decide/command.js";
import { decide } from "../decide/decide.js";
import { modelView } from "../deferral/modelView.js";
import { decodeEventOrThrow } from "../events/decodeEvent.js";
import { type McpTool, type ToolledgerEvent, EVENT_SCHEMA_VERSION as v } from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { replay, replayFromLatestCompaction } from "../fold/replay.js";
import { initialState, type State } from "../fold/state.js";
import { diagnostics } from "../registry/diagnostics.js";

const EXTENSIONS = ["github", "slack", "developer", "_vault"];
const TOOLS: McpTool[] = [
  { name: "create_issue", inputSchema: { type: "object" } },
  { name: "list_issues", inputSchema: { type: "object" } },
  { name: "panel", inputSchema: { type: "object" }, _meta: { ui: { visibility: ["app"] } } },
  { name: "post", inputSchema: { type: "object" } },
];
const NAMES = [
  "github__create_issue",
  "github__list_issues",
  "github__panel",
  "slack__post",
  "developer__post",
  "_vault__post",
  "github__create_isue",
];

type Step =
  | { op: "add"; ext: string; platform: boolean; hidden: boolean; fp: number }
  | { op: "remove"; ext: string }
  | { op: "invalidate"; ext: string }
  | { op: "fetch"; ext: string; tools: McpTool[]; lag: number }
  | { op: "configure"; lookup: boolean; alwaysLoad: string[] }
  | { op: "enable"; callId: string; names: string[] }
  | { op: "request"; callId: string; names: string[] }
  | { op: "respond"; callId: string; ok: boolean }
  | { op: "compact" }
  | { op: "clear" };

const ext = fc.constantFrom(...EXTENSIONS);
const callId = fc.oneof(
  fc.nat(8).map((i) => `call-${i}`),
  fc.constant("__proto__"),
);
const VALID = ["github__create_issue", "github__list_issues", "slack__post", "developer__post"];
const names = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...VALID) },
    { weight: 1, arbitrary: fc.constantFrom(...NAMES) },
  ),
  { minLength: 1, maxLength: 2 },
);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("add" as const),
      ext,
      platform: fc.boolean(),
      hidden: fc.boolean(),
      fp: fc.nat(1),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("remove" as const), ext }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("invalidate" as const), ext }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("fetch" as const),
      ext,
      tools: fc.subarray(TOOLS),
      lag: fc.oneof(fc.constant(0), fc.nat(2)),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("configure" as const),
      lookup: fc.boolean(),
      alwaysLoad: fc.subarray(NAMES, { maxLength: 2 }),
    }),
  },
  { weight: 4, arbitrary: fc.record({ op: fc.constant("enable" as const), callId, names }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("request" as const), callId, names }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("respond" as const), callId, ok: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.constant({ op: "compact" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "clear" as const }) },
);

/** A host's log: commands through the decider (refusals append nothing), plus raw pairing noise. */
/** Every log starts from a populated registry in lookup mode, so enables usually succeed. */
const PRELUDE: Step[] = [
  ...EXTENSIONS.map(
    (e): Step => ({ op: "add", ext: e, platform: e === "developer", hidden: false, fp: 0 }),
  ),
  ...EXTENSIONS.map((e): Step => ({ op: "fetch", ext: e, tools: TOOLS, lag: 0 })),
  { op: "configure", lookup: true, alwaysLoad: [] },
];

function materialise(steps: Step[]): ToolledgerEvent[] {
  const log: ToolledgerEvent[] = [];
  let state = initialState();
  const append = (events: ToolledgerEvent[]) => {
    for (const e of events) {
      log.push(e);
      state = evolve(state, e);
    }
  };
  for (const s of [...PRELUDE, ...steps]) {
    if (s.op === "request") {
      append([{ type: "EnableToolsRequested", v, callId: s.callId, names: s.names }]);
      continue;
    }
    if (s.op === "respond") {
      append([{ type: "EnableToolsResponded", v, callId: s.callId, ok: s.ok }]);
      continue;
    }
    const command: Command =
      s.op === "add"
        ? {
            type: "AddExtension",
            name: s.ext,
            kind: s.platform ? "platform" : "stdio",
            hidden: s.hidden,
            configFingerprint: `fp${s.fp}`,
          }
        : s.op === "remove"
          ? { type: "RemoveExtension", extension: s.ext }
          : s.op === "invalidate"
            ? { type: "InvalidateTools", extension: s.ext }
            : s.op === "fetch"
              ? {
                  type: "RecordFetch",
                  extension: s.ext,
                  startedAtVersion: Math.max(0, state.version - s.lag),
                  tools: s.tools,
                }
              : s.op === "configure"
                ? {
                    type: "ConfigureDeferral",
                    mode: s.lookup ? "lookup" : "off",
                    alwaysLoad: s.alwaysLoad,
                  }
                : s.op === "enable"
                  ? { type: "EnableTools", callId: s.callId, names: s.names }
                  : { type: s.op === "compact" ? "Compact" : "Clear" };
    const d = decide(state, command);
    if (d.ok) append(d.events);
  }
  return log;
}

const logs = fc.array(step, { minLength: 5, maxLength: 40 }).map(materialise);
const hasCompaction = (log: ToolledgerEvent[]) => log.some((e) => e.type === "Compacted");

function expectSameConversation(fromCompaction: State, whole: State): void {
  expect(fromCompaction.enabled).toEqual(whole.enabled);
  expect(fromCompaction.pending).toEqual(whole.pending);
  expect(fromCompaction.anomalies).toEqual(whole.anomalies);
  expect(fromCompaction.anomalyCount).toBe(whole.anomalyCount);
  expect(diagnostics(fromCompaction)).toEqual(diagnostics(whole));
  expect(modelView(fromCompaction)).toEqual(modelView(whole));
  expect(fromCompaction).toEqual(whole);
}

describe("D7 reconstruction after compaction (property)", () => {
  it("D7 replaying from the latest Compacted equals replaying the whole log, at every prefix", () => {
    fc.assert(
      fc.property(logs.filter(hasCompaction), (log) => {
        // Checked where a compaction was just read and again after later conversation events.
        let whole = initialState();
        log.forEach((e, i) => {
          whole = evolve(whole, e);
          const next = log[i + 1]?.type;
          if (e.type !== "Compacted" && next !== "Compacted" && next !== undefined) return;
          const fromCompaction = replayFromLatestCompaction(log.slice(0, i + 1));
          expect(fromCompaction.enabled).toEqual(whole.enabled);
          expect(fromCompaction.pending).toEqual(whole.pending);
          expect(fromCompaction.anomalies).toEqual(whole.anomalies);
          expect(fromCompaction.anomalyCount).toBe(whole.anomalyCount);
        });
        expectSameConversation(replayFromLatestCompaction(log), whole);
      }),
      { numRuns: 100 },
    );
  });

  it("D7 compaction never loses an enabled tool or a pending request", () => {
    fc.assert(
      fc.property(logs.filter(hasCompaction), (log) => {
        log.forEach((e, k) => {
          if (e.type !== "Compacted") return;
          const before = replay(log.slice(0, k));
          const after = replayFromLatestCompaction(log.slice(0, k + 1));
          for (const name of before.enabled) expect(after.enabled).toContain(name);
          expect(after.pending).toEqual(before.pending);
          expectSameConversation(after, before);
          // Only what came after the compaction is read for the conversation.
          const onlyFromHere = replayFromLatestCompaction([
            ...log.slice(0, k).filter((x) => !x.type.startsWith("Enable") && x.type !== "Cleared"),
            e,
          ]);
          expect(onlyFromHere.enabled).toEqual(before.enabled);
        });
      }),
      { numRuns: 100 },
    );
  });

  it("D7 compactions are transparent: the log without its Compacted events folds to the same state", () => {
    fc.assert(
      fc.property(logs.filter(hasCompaction), (log) => {
        expectSameConversation(replay(log), replay(log.filter((e) => e.type !== "Compacted")));
      }),
      { numRuns: 100 },
    );
  });

  it("D7 holds for a log read back from a store (JSON, decoded)", () => {
    fc.assert(
      fc.property(logs.filter(hasCompaction), (log) => {
        const stored = log.map((e) => decodeEventOrThrow(JSON.parse(JSON.stringify(e))));
        expectSameConversation(replayFromLatestCompaction(stored), replay(log));
      }),
      { numRuns: 100 },
    );
  });
});
