import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decide } from "../decide/decide.js";
import { type ToolledgerEvent, EVENT_SCHEMA_VERSION as v } from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { replay } from "../fold/replay.js";
import { initialState, type State } from "../fold/state.js";

// Call ids and names include prototype keys on purpose: they are dictionary keys in state.
const CALL_IDS = ["a", "b", "c", "__proto__", "constructor"];
const NAMES = [
  "github__create_issue",
  "github__list_issues",
  "slack__post",
  "nope",
  "__proto__",
  "shell",
];
const EXTENSIONS = ["github", "slack", "developer", "_vault"];
const RAW_TOOLS = ["create_issue", "list_issues", "post", "shell"];

type Step =
  | { op: "request"; callId: string; names: string[] }
  | { op: "respond"; callId: string; ok: boolean }
  | { op: "enable"; callId: string; names: string[] }
  | { op: "clear" }
  | { op: "compact" }
  | { op: "registry"; event: ToolledgerEvent };

const callId = fc.constantFrom(...CALL_IDS);
const names = fc.array(fc.constantFrom(...NAMES), { maxLength: 3 });
const extension = fc.constantFrom(...EXTENSIONS);

const registryEvent: fc.Arbitrary<ToolledgerEvent> = fc.oneof(
  fc.record({
    type: fc.constant("ExtensionAdded" as const),
    v: fc.constant(v),
    name: extension,
    kind: fc.constantFrom("stdio", "platform"),
    exposeUnprefixed: fc.constant(false),
    hidden: fc.boolean(),
    availableTools: fc.constant<string[]>([]),
    configFingerprint: fc.constantFrom("fp1", "fp2"),
  }),
  fc.record({ type: fc.constant("ExtensionRemoved" as const), v: fc.constant(v), extension }),
  fc.record({ type: fc.constant("ToolsInvalidated" as const), v: fc.constant(v), extension }),
  fc.record({
    type: fc.constant("ToolsFetched" as const),
    v: fc.constant(v),
    extension,
    startedAtVersion: fc.nat(8),
    tools: fc
      .subarray(RAW_TOOLS)
      .map((ts) => ts.map((name) => ({ name, inputSchema: { type: "object" } }))),
  }),
  fc.record({
    type: fc.constant("DeferralConfigured" as const),
    v: fc.constant(v),
    mode: fc.constantFrom("off" as const, "lookup" as const),
    alwaysLoad: fc.subarray(NAMES),
  }),
);

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant("request" as const), callId, names }) },
  {
    weight: 5,
    arbitrary: fc.record({ op: fc.constant("respond" as const), callId, ok: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("enable" as const), callId, names }) },
  { weight: 1, arbitrary: fc.constant({ op: "clear" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "compact" as const }) },
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant("registry" as const), event: registryEvent }),
  },
);

/**
 * Turns steps into a log the way a host appends it: raw requests and responses (a damaged
 * or foreign log), decided enables and compactions, registry events. Returns the log and
 * the state folded along the way.
 */
function materialise(steps: Step[]): { log: ToolledgerEvent[]; state: State } {
  const log: ToolledgerEvent[] = [];
  let state = initialState();
  const append = (events: ToolledgerEvent[]) => {
    for (const e of events) {
      log.push(e);
      state = evolve(state, e);
    }
  };
  for (const s of steps) {
    switch (s.op) {
      case "request":
        append([{ type: "EnableToolsRequested", v, callId: s.callId, names: s.names }]);
        break;
      case "respond":
        append([{ type: "EnableToolsResponded", v, callId: s.callId, ok: s.ok }]);
        break;
      case "clear":
        append([{ type: "Cleared", v }]);
        break;
      case "registry":
        append([s.event]);
        break;
      case "enable":
      case "compact": {
        const d = decide(
          state,
          s.op === "compact"
            ? { type: "Compact" }
            : { type: "EnableTools", callId: s.callId, names: s.names },
        );
        // The decider may refuse a reused call id; a host then appends nothing.
        if (d.ok) append(d.events);
        else expect(d.error.code).toBe("DUPLICATE_CALL_ID");
        break;
      }
    }
  }
  return { log, state };
}

type Req = { kind: "req"; callId: string; names: string[] };
type Res = { kind: "res"; callId: string; ok: boolean };

/**
 * D6 + D8 read straight off the log, with no state machine: after the latest `Cleared`, a
 * call id's answer is its first response that has a request of that id before it; the
 * answer, if successful, enables the names of every request of that id before it. A
 * response with no earlier request is an orphan, one after the answer a duplicate. A
 * request is pending while no response of its id follows it. Compactions decided from the
 * current state change nothing, so they are ignored here.
 */
function reference(log: ToolledgerEvent[]) {
  const segments: (Req | Res)[][] = [[]];
  for (const e of log) {
    if (e.type === "Cleared") segments.push([]);
    if (e.type === "EnableToolsRequested")
      segments.at(-1)!.push({ kind: "req", callId: e.callId, names: e.names });
    if (e.type === "EnableToolsResponded")
      segments.at(-1)!.push({ kind: "res", callId: e.callId, ok: e.ok });
  }
  const anomalies: { kind: string; callId: string }[] = [];
  let enabled = new Set<string>();
  let pending: { callId: string; names: string[] }[] = [];
  for (const seg of segments) {
    enabled = new Set();
    const isAnswer = (j: number) => {
      const r = seg[j]!;
      return (
        r.kind === "res" && seg.slice(0, j).some((e) => e.kind === "req" && e.callId === r.callId)
      );
    };
    seg.forEach((e, j) => {
      if (e.kind !== "res") return;
      const before = seg.slice(0, j);
      const answeredBefore = before.some((x, i) => x.callId === e.callId && isAnswer(i));
      const requests = before.filter((x): x is Req => x.kind === "req" && x.callId === e.callId);
      if (answeredBefore) anomalies.push({ kind: "duplicate_response", callId: e.callId });
      else if (requests.length === 0)
        anomalies.push({ kind: "response_without_request", callId: e.callId });
      else if (!e.ok) anomalies.push({ kind: "failed_response", callId: e.callId });
      else for (const r of requests) for (const n of r.names) enabled.add(n);
    });
    const open = seg.filter(
      (e, i): e is Req =>
        e.kind === "req" &&
        !seg.slice(i + 1).some((x) => x.kind === "res" && x.callId === e.callId),
    );
    pending = [];
    for (const r of open) {
      const entry = pending.find((p) => p.callId === r.callId);
      if (entry) entry.names.push(...r.names);
      else pending.push({ callId: r.callId, names: [...r.names] });
    }
  }
  return { enabled: [...enabled].sort(), pending, anomalies };
}

const logs = fc.array(step, { maxLength: 40 }).map(materialise);

describe("D6 the pairing rule (property)", () => {
  it("D6/D8 the enabled set, pending requests and anomalies equal the reference model", () => {
    fc.assert(
      fc.property(logs, ({ log, state }) => {
        const ref = reference(log);
        expect([...state.enabled].sort()).toEqual(ref.enabled);
        expect(state.pending).toEqual(ref.pending);
        expect(state.anomalies).toEqual(ref.anomalies.slice(-100));
        expect(state.anomalyCount).toBe(ref.anomalies.length);
      }),
      { numRuns: 400 },
    );
  });

  it("D6 replaying the log equals the incremental fold, survives JSON, and the enabled set stays sorted and unique", () => {
    fc.assert(
      fc.property(logs, ({ log, state }) => {
        expect(replay(log)).toEqual(state);
        // E3: call ids such as __proto__ survive a JSON round trip of the state.
        expect(JSON.parse(JSON.stringify(state))).toEqual(state);
        expect(new Set(state.enabled).size).toBe(state.enabled.length);
        expect([...state.enabled].sort()).toEqual(state.enabled);
      }),
      { numRuns: 200 },
    );
  });

  it("D6 registry events never change the conversation state", () => {
    fc.assert(
      fc.property(logs, ({ log, state }) => {
        const conversationOnly = replay(
          log.filter(
            (e) => e.type.startsWith("Enable") || e.type === "Cleared" || e.type === "Compacted",
          ),
        );
        expect(conversationOnly.enabled).toEqual(state.enabled);
        expect(conversationOnly.pending).toEqual(state.pending);
        expect(conversationOnly.anomalies).toEqual(state.anomalies);
      }),
      { numRuns: 200 },
    );
  });
});

describe("D6 the pairing rule (counterexamples kept as regular tests)", () => {
  const req = (callId: string, n: string[]): ToolledgerEvent => ({
    type: "EnableToolsRequested",
    v,
    callId,
    names: n,
  });
  const res = (callId: string, ok: boolean): ToolledgerEvent => ({
    type: "EnableToolsResponded",
    v,
    callId,
    ok,
  });

  it("D6 request, success, request with the same id, success: the second request enables nothing", () => {
    const log = [req("a", ["x"]), res("a", true), req("a", ["y"]), res("a", true)];
    const s = replay(log);
    expect(s.enabled).toEqual(["x"]);
    expect(s.pending).toEqual([]);
    expect(s.anomalies).toEqual([{ kind: "duplicate_response", callId: "a" }]);
    expect(reference(log).enabled).toEqual(["x"]);
  });

  it("D6 orphan response, then request and response with that id: they pair", () => {
    const log = [res("a", true), req("a", ["x"]), res("a", true)];
    expect(replay(log).enabled).toEqual(["x"]);
    expect(replay(log).anomalies).toEqual([{ kind: "response_without_request", callId: "a" }]);
    expect(reference(log).enabled).toEqual(["x"]);
  });
});
