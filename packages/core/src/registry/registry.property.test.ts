import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeEvent } from "../events/decodeEvent.js";
import { type McpTool, type ToolledgerEvent, EVENT_SCHEMA_VERSION as v } from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { replay } from "../fold/replay.js";
import { initialState, type State } from "../fold/state.js";
import { compareBytes } from "../naming/compareBytes.js";
import { nameToKey } from "../naming/nameToKey.js";
import { resolveTool } from "../naming/resolveTool.js";
import { getExtension, listExtensions } from "./extensions.js";
import { listTools } from "./listTools.js";
import { servedTool } from "./servedTool.js";

// Odd names on purpose: prefixes of each other, hidden ones, non-ASCII, prototype keys.
const EXTENSIONS = [
  "a",
  "a__b",
  "A",
  "_hidden",
  "client 🚀",
  "__proto__",
  "GitHub",
  "x.y",
  "constructor",
];
const TOOLS = ["b__c", "c", "x", "__proto__", "toString", "create_issue", "b", "a__b", ""];

type Step =
  | {
      op: "add";
      ext: number;
      unprefixed: boolean;
      hidden: boolean;
      fp: number;
      available: number[];
    }
  | { op: "remove"; ext: number }
  | { op: "invalidate"; ext: number }
  | { op: "fetch"; ext: number; tools: number[]; lag: number; malformed: boolean }
  | { op: "fail"; ext: number; lag: number };

const ext = fc.nat(EXTENSIONS.length - 1);
const toolIdx = fc.nat(TOOLS.length - 1);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("add" as const),
      ext,
      unprefixed: fc.boolean(),
      hidden: fc.boolean(),
      fp: fc.nat(2),
      available: fc.array(toolIdx, { maxLength: 2 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("remove" as const), ext }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("invalidate" as const), ext }) },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant("fetch" as const),
      ext,
      tools: fc.array(toolIdx, { maxLength: 6 }),
      lag: fc.oneof(fc.constant(0), fc.constant(0), fc.nat(2)),
      malformed: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("fail" as const), ext, lag: fc.nat(1) }) },
);

/** Turns abstract steps into the events a host would append, against the evolving state. */
function materialise(steps: Step[]): ToolledgerEvent[] {
  let state = initialState();
  const events: ToolledgerEvent[] = [];
  for (const s of steps) {
    const name = EXTENSIONS[s.ext]!;
    let e: ToolledgerEvent;
    switch (s.op) {
      case "add":
        e = {
          type: "ExtensionAdded",
          v,
          name,
          kind: s.ext % 3 === 0 ? "platform" : "stdio",
          exposeUnprefixed: s.unprefixed,
          hidden: s.hidden,
          availableTools: s.available.map((i) => TOOLS[i]!),
          configFingerprint: `fp${s.fp}`,
        };
        break;
      case "remove":
        e = { type: "ExtensionRemoved", v, extension: name };
        break;
      case "invalidate":
        e = { type: "ToolsInvalidated", v, extension: name };
        break;
      case "fetch": {
        const tools: McpTool[] = s.tools.map((i, n) =>
          s.malformed && n === 0
            ? { name: TOOLS[i]! }
            : { name: TOOLS[i]!, inputSchema: { type: "object" }, description: `${i}:${n}` },
        );
        e = {
          type: "ToolsFetched",
          v,
          extension: name,
          startedAtVersion: Math.max(0, state.version - s.lag),
          tools,
        };
        break;
      }
      case "fail":
        e = {
          type: "ToolsFetchFailed",
          v,
          extension: name,
          startedAtVersion: Math.max(0, state.version - s.lag),
          error: "boom",
        };
        break;
    }
    events.push(e);
    state = evolve(state, e);
  }
  return events;
}

const log = fc.array(step, { maxLength: 40 }).map(materialise);
const names = (s: State, o = {}) =>
  listTools(s, { includeHidden: true, ...o }).map((t) => t.publicName);

describe("registry laws (E2, R1–R13)", () => {
  it("E2 the reducer never throws on a decoded event, and every generated event decodes", () => {
    fc.assert(
      fc.property(log, (events) => {
        let state = initialState();
        for (const e of events) {
          const decoded = decodeEvent(JSON.parse(JSON.stringify(e)));
          expect(decoded.ok).toBe(true);
          if (decoded.ok) state = evolve(state, decoded.event);
        }
        expect(state).toEqual(replay(events));
      }),
      { numRuns: 300 },
    );
  });

  it("E2 replay(all) equals folding the same log in arbitrary chunks", () => {
    fc.assert(
      fc.property(log, fc.array(fc.nat(), { maxLength: 4 }), (events, cuts) => {
        const points = [...new Set(cuts.map((c) => c % (events.length + 1)))].sort((a, b) => a - b);
        let state = initialState();
        let from = 0;
        for (const p of [...points, events.length]) {
          state = replay(events.slice(from, p), state);
          from = p;
        }
        expect(state).toEqual(replay(events));
      }),
      { numRuns: 300 },
    );
  });

  it("E3 state survives a JSON round-trip unchanged, and answers queries the same", () => {
    fc.assert(
      fc.property(log, (events) => {
        const state = replay(events);
        const copy = JSON.parse(JSON.stringify(state)) as State;
        expect(copy).toEqual(state);
        expect(names(copy)).toEqual(names(state));
        for (const n of names(state))
          expect(resolveTool(copy, n, { includeHidden: true })).toEqual(
            resolveTool(state, n, { includeHidden: true }),
          );
      }),
      { numRuns: 200 },
    );
  });

  it("R11 a stale fetch never changes the registry", () => {
    fc.assert(
      fc.property(log, (events) => {
        let state = initialState();
        for (const e of events) {
          const next = evolve(state, e);
          if (
            (e.type === "ToolsFetched" || e.type === "ToolsFetchFailed") &&
            e.startedAtVersion !== state.version
          ) {
            expect(next.version).toBe(state.version);
            expect(names(next)).toEqual(names(state));
            const key = nameToKey(e.extension);
            expect(getExtension(next, key)?.tools).toBe(getExtension(state, key)?.tools);
            expect(next.collisions).toBe(state.collisions);
          }
          state = next;
        }
      }),
      { numRuns: 300 },
    );
  });

  it("R10/R13 public names are unique and every listed tool resolves to its owner (R5)", () => {
    fc.assert(
      fc.property(log, (events) => {
        const state = replay(events);
        const tools = listTools(state, { includeHidden: true });
        expect(new Set(tools.map((t) => t.publicName)).size).toBe(tools.length);
        for (const t of tools) {
          const owner = nameToKey(String(servedTool(state, t)._meta?.goose_extension));
          expect(owner).toBe(t.owner);
          expect(resolveTool(state, t.publicName, { includeHidden: true })).toMatchObject({
            ok: true,
            extension: owner,
            rawName: t.rawName,
          });
        }
      }),
      { numRuns: 300 },
    );
  });

  it("R12 listings are byte-wise sorted by public name, whatever order the servers sent", () => {
    fc.assert(
      fc.property(log, fc.constantFrom(...EXTENSIONS), (events, x) => {
        const state = replay(events);
        for (const list of [
          names(state),
          names(state, { extension: x }),
          names(state, { exclude: x }),
        ]) {
          expect(list).toEqual([...list].sort(compareBytes));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("R12 listTools({extension: x}) plus listTools({exclude: x}) is exactly listTools()", () => {
    fc.assert(
      fc.property(log, fc.constantFrom(...EXTENSIONS, "nope"), (events, x) => {
        const state = replay(events);
        for (const includeHidden of [false, true]) {
          const only = listTools(state, { extension: x, includeHidden }).map((t) => t.publicName);
          const rest = listTools(state, { exclude: x, includeHidden }).map((t) => t.publicName);
          const all = listTools(state, { includeHidden }).map((t) => t.publicName);
          expect([...only, ...rest].sort()).toEqual([...all].sort());
          expect(only.filter((n) => rest.includes(n))).toEqual([]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("E2 evolve returns the same object for an event that changes nothing", () => {
    fc.assert(
      fc.property(log, (events) => {
        const state = replay(events);
        for (const x of listExtensions(state)) {
          const key = x.key;
          const same = {
            type: "ExtensionAdded",
            v,
            name: x.name,
            kind: x.kind,
            exposeUnprefixed: x.exposeUnprefixed,
            availableTools: [...x.availableTools],
            configFingerprint: x.configFingerprint,
          } satisfies Omit<ToolledgerEvent & { type: "ExtensionAdded" }, "hidden">;
          // The stored flag is effective hiddenness; a `_` key is hidden whichever flag it was added with.
          const flags = key.startsWith("_") ? [false, true] : [x.hidden];
          for (const hidden of flags) expect(evolve(state, { ...same, hidden })).toBe(state);
        }
      }),
      { numRuns: 200 },
    );
  });
});
