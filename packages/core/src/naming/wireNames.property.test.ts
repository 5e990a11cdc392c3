import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Command } from "../decide/command.js";
import { decide } from "../decide/decide.js";
import { modelView } from "../deferral/modelView.js";
import { decodeEvent } from "../events/decodeEvent.js";
import type { ToolledgerEvent } from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { replay } from "../fold/replay.js";
import { initialState, type State } from "../fold/state.js";
import { listTools } from "../registry/listTools.js";
import { servedTool } from "../registry/servedTool.js";
import { resolveTool } from "./resolveTool.js";
import { fitsWire, WIRE_NAME_PATTERN } from "./wireName.js";

// R14 laws over registries with names that do not fit: long keys, long raw names, dots and
// non-ASCII letters from unprefixed servers, names that look like derived wire names.

const EXTENSIONS = [
  { name: "companyinternaleverythingserverforintegrationtesting", unprefixed: false },
  { name: "github", unprefixed: false },
  { name: "loose", unprefixed: true },
  { name: "other", unprefixed: true },
  { name: "_internal", unprefixed: true },
];
const LONG = "get-annotated-message-with-a-description-that-goes-on-and-on";
const RAW = [
  "get-annotated-message",
  "create_issue",
  LONG,
  "tool.name",
  "café",
  "naïve.tool",
  "x",
  "",
  "github__create_issue",
  "companyinternaleverythingserverforintegrationtesting__get-annotated-message",
];

type Op =
  | { op: "fetch"; ext: number; tools: number[]; budget: number }
  | { op: "remove"; ext: number }
  | { op: "add"; ext: number }
  | { op: "lookup"; on: boolean };

const ext = fc.nat(EXTENSIONS.length - 1);
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant("fetch" as const),
      ext,
      tools: fc.uniqueArray(fc.nat(RAW.length - 1), { maxLength: 5 }),
      budget: fc.constantFrom(0, 0, 17, 30),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("remove" as const), ext }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("add" as const), ext }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("lookup" as const), on: fc.boolean() }) },
);

function toCommand(o: Op, state: State): Command {
  switch (o.op) {
    case "add": {
      const x = EXTENSIONS[o.ext]!;
      return {
        type: "AddExtension",
        name: x.name,
        kind: "stdio",
        exposeUnprefixed: x.unprefixed,
        configFingerprint: "f",
      };
    }
    case "remove":
      return { type: "RemoveExtension", extension: EXTENSIONS[o.ext]!.name };
    case "fetch":
      return {
        type: "RecordFetch",
        extension: EXTENSIONS[o.ext]!.name,
        startedAtVersion: state.version,
        tools: o.tools.map((i) => ({ name: RAW[i]!, inputSchema: { type: "object" } })),
        outerPrefixBudget: o.budget,
      };
    case "lookup":
      return { type: "ConfigureDeferral", mode: o.on ? "lookup" : "off" };
  }
}

/** Folds the ops through the decider; returns the state, the log, and the last budget used. */
function run(ops: Op[]): { state: State; log: ToolledgerEvent[]; budgets: Map<string, number> } {
  let state = initialState();
  const log: ToolledgerEvent[] = [];
  const budgets = new Map<string, number>();
  // Every extension is added first, so fetches usually land.
  const all: Op[] = [...EXTENSIONS.map((_, i) => ({ op: "add" as const, ext: i })), ...ops];
  for (const o of all) {
    const decision = decide(state, toCommand(o, state));
    if (!decision.ok) continue;
    for (const e of decision.events) {
      state = evolve(state, e);
      log.push(e);
      if (e.type === "ToolsFetched" && o.op === "fetch") budgets.set(e.extension, o.budget);
    }
  }
  return { state, log, budgets };
}

const ops = fc.array(op, { maxLength: 25 });

describe("R14 wire names", () => {
  it("R14 every served name matches the pattern, within 64 minus the host's budget", () => {
    fc.assert(
      fc.property(ops, (o) => {
        const { state, budgets } = run(o);
        const view = modelView(state);
        for (const name of [...view.tools.map((t) => t.name), ...view.deferred])
          expect(name).toMatch(WIRE_NAME_PATTERN);
        for (const t of listTools(state, { includeHidden: true })) {
          expect(t.wireName).toMatch(WIRE_NAME_PATTERN);
          expect(t.wireName.length).toBeLessThanOrEqual(64 - (budgets.get(t.owner) ?? 0));
          expect(servedTool(state, t).name).toBe(t.wireName);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("R14 a refetch of the same tools under a larger outer-prefix budget serves names within the new budget", () => {
    // Found by the property above (seed -157675966): the refetch kept its previous list.
    const fetch = { op: "fetch" as const, ext: 0, tools: [0], budget: 0 };
    const { state } = run([fetch, { ...fetch, budget: 17 }]);
    const [t] = listTools(state);
    expect(t!.wireName.length).toBeLessThanOrEqual(64 - 17);
    expect(modelView(state).tools.map((x) => x.name)).toEqual([t!.wireName]);
    expect(resolveTool(state, t!.wireName)).toMatchObject({ ok: true, publicName: t!.publicName });
  });

  it("R14 a name that fits is unchanged", () => {
    fc.assert(
      fc.property(ops, (o) => {
        const { state, budgets } = run(o);
        for (const t of listTools(state, { includeHidden: true })) {
          if (fitsWire(t.publicName, 64 - (budgets.get(t.owner) ?? 0)))
            expect(t.wireName).toBe(t.publicName);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("R14 the mapping is injective: distinct public names never share a served name", () => {
    fc.assert(
      fc.property(ops, (o) => {
        const { state } = run(o);
        const tools = listTools(state, { includeHidden: true });
        const byWire = new Map<string, string>();
        for (const t of tools) {
          const other = byWire.get(t.wireName);
          if (other !== undefined) expect(other).toBe(t.publicName);
          byWire.set(t.wireName, t.publicName);
        }
        // And no served wire name is another tool's public name.
        const publicNames = new Set(tools.map((t) => t.publicName));
        for (const t of tools)
          if (t.wireName !== t.publicName) expect(publicNames.has(t.wireName)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("R14 the mapping is stable under replay: the log reloads to the same wire names", () => {
    fc.assert(
      fc.property(ops, (o) => {
        const { state, log } = run(o);
        const reloaded = log.map((e) => {
          const d = decodeEvent(JSON.parse(JSON.stringify(e)));
          if (!d.ok) throw new Error(d.error.message);
          return d.event;
        });
        const again = replay(reloaded);
        const names = (s: State) =>
          listTools(s, { includeHidden: true }).map((t) => [t.publicName, t.wireName]);
        expect(names(again)).toEqual(names(state));
        expect(modelView(again)).toEqual(modelView(state));
        expect(JSON.parse(JSON.stringify(state))).toEqual(state);
      }),
      { numRuns: 300 },
    );
  });

  it("R14/R13 both directions resolve: wire name and public name reach the same tool", () => {
    fc.assert(
      fc.property(ops, (o) => {
        const { state } = run(o);
        for (const t of listTools(state, { includeHidden: true })) {
          for (const name of [t.wireName, t.publicName, `functions.${t.wireName}`]) {
            expect(resolveTool(state, name, { includeHidden: true })).toMatchObject({
              ok: true,
              publicName: t.publicName,
              wireName: t.wireName,
              extension: t.owner,
              rawName: t.rawName,
            });
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
