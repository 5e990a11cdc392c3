import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Command } from "../decide/command.js";
import { decide } from "../decide/decide.js";
import { modelView } from "../deferral/modelView.js";
import { evolve } from "../fold/evolve.js";
import { initialState, type State } from "../fold/state.js";
import { resolveTool } from "../naming/resolveTool.js";
import { diagnostics } from "./diagnostics.js";
import { listTools } from "./listTools.js";
import { servedTool } from "./servedTool.js";

// R8/R10: a hidden extension never changes what users or the model see of the visible ones.
// A world is run twice, once as generated and once without every command that touches a
// hidden extension; everything visible must be the same.

interface Ext {
  name: string;
  hidden: boolean;
  unprefixed: boolean;
  kind: string;
}
const EXTS: Ext[] = [
  { name: "Developer", hidden: false, unprefixed: true, kind: "platform" },
  { name: "_sys", hidden: true, unprefixed: true, kind: "builtin" },
  { name: "a", hidden: false, unprefixed: false, kind: "stdio" },
  { name: "a__b", hidden: true, unprefixed: false, kind: "stdio" },
  { name: "_a", hidden: true, unprefixed: false, kind: "stdio" },
  { name: "zeta", hidden: false, unprefixed: true, kind: "stdio" },
  { name: "aa", hidden: true, unprefixed: true, kind: "stdio" },
];
const TOOLS = ["shell", "b__c", "c", "a__c", "read"];
const VISIBLE_NAMES = ["shell", "b__c", "c", "a__c", "a__b__c", "read", "a__read", "a__shell"];

type Op =
  | { op: "add"; ext: number; fp: number }
  | { op: "remove"; ext: number }
  | { op: "fetch"; ext: number; tools: number[]; appOnly: number[] }
  | { op: "fail"; ext: number }
  | { op: "invalidate"; ext: number }
  | { op: "deferral"; lookup: boolean; alwaysLoad: string[] }
  | { op: "enable"; names: string[] };

const ext = fc.nat(EXTS.length - 1);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant("add" as const), ext, fp: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("remove" as const), ext }) },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant("fetch" as const),
      ext,
      tools: fc.array(fc.nat(TOOLS.length - 1), { minLength: 1, maxLength: 4 }),
      appOnly: fc.array(fc.nat(TOOLS.length - 1), { maxLength: 1 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("fail" as const), ext }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("invalidate" as const), ext }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("deferral" as const),
      lookup: fc.boolean(),
      alwaysLoad: fc.subarray(VISIBLE_NAMES, { maxLength: 2 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("enable" as const),
      names: fc.subarray(VISIBLE_NAMES, { minLength: 1, maxLength: 2 }),
    }),
  },
);

function command(o: Op, state: State, n: number): Command {
  const x = "ext" in o ? EXTS[o.ext]! : undefined;
  switch (o.op) {
    case "add":
      return {
        type: "AddExtension",
        name: x!.name,
        kind: x!.kind,
        exposeUnprefixed: x!.unprefixed,
        hidden: x!.hidden,
        configFingerprint: `fp${o.fp}`,
      };
    case "remove":
      return { type: "RemoveExtension", extension: x!.name };
    case "fetch":
      return {
        type: "RecordFetch",
        extension: x!.name,
        startedAtVersion: state.version,
        tools: o.tools.map((i) => ({
          name: TOOLS[i]!,
          description: `${x!.name}:${TOOLS[i]}`,
          inputSchema: { type: "object" },
          ...(o.appOnly.includes(i) ? { _meta: { ui: { visibility: ["app"] } } } : {}),
        })),
      };
    case "fail":
      return {
        type: "RecordFetchFailure",
        extension: x!.name,
        startedAtVersion: state.version,
        error: "boom",
      };
    case "invalidate":
      return { type: "InvalidateTools", extension: x!.name };
    case "deferral":
      return {
        type: "ConfigureDeferral",
        mode: o.lookup ? "lookup" : "off",
        alwaysLoad: o.alwaysLoad,
      };
    case "enable":
      return { type: "EnableTools", callId: `c${n}`, names: o.names };
  }
}

/** Runs numbered ops (the number makes a call id that survives filtering). */
function run(ops: (readonly [Op, number])[]): State {
  let state = initialState();
  for (const [o, n] of ops) {
    const decision = decide(state, command(o, state, n));
    if (decision.ok) for (const e of decision.events) state = evolve(state, e);
  }
  return state;
}

/** What a user or the model can see, without the version counter (hidden adds bump it). */
function seen(state: State) {
  const view = modelView(state);
  return {
    tools: listTools(state).map((t) => ({
      name: t.publicName,
      owner: t.owner,
      raw: t.rawName,
      def: servedTool(state, t),
    })),
    exclude: listTools(state, { exclude: "a" }).map((t) => t.publicName),
    view: { tools: view.tools, deferred: view.deferred, prompt: view.systemPrompt },
    enabled: state.enabled,
    resolved: VISIBLE_NAMES.map((n) => resolveTool(state, n)),
    diagnostics: diagnostics(state),
  };
}

describe("R8/R10 hidden extensions are invisible to users and the model", () => {
  it("R10 no hidden extension changes what listTools, modelView, resolveTool or diagnostics return", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (generated) => {
        // Every extension is added first, so collisions between them are common.
        const adds: Op[] = EXTS.map((_, i) => ({ op: "add", ext: i, fp: 0 }));
        const ops = [...adds, ...generated].map((o, n) => [o, n] as const);
        const withHidden = run(ops);
        const without = run(ops.filter(([o]) => !("ext" in o) || !EXTS[o.ext]!.hidden));
        expect(seen(withHidden)).toEqual(seen(without));
      }),
      { numRuns: 400 },
    );
  });
});
