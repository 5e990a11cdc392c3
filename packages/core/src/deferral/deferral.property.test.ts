import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkCall } from "../calls/checkCall.js";
import type { Command } from "../decide/command.js";
import { decide } from "../decide/decide.js";
import { type McpTool, type ToolledgerEvent, EVENT_SCHEMA_VERSION as v } from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { replay } from "../fold/replay.js";
import { initialState, type State } from "../fold/state.js";
import { ENABLE_TOOLS_NAME, modelView } from "./modelView.js";

// "misc" exposes unprefixed names; raw names have no "__", so no two tools share a public name.
const EXTENSIONS = ["github", "slack", "_vault", "misc"] as const;
const RAW = ["a", "b", "c", "d"];

interface ToolSpec {
  raw: string;
  appOnly: boolean;
}
interface ExtSpec {
  platform: boolean;
  hidden: boolean;
  tools: ToolSpec[];
}
type WorldSpec = Record<(typeof EXTENSIONS)[number], ExtSpec>;

const extSpec: fc.Arbitrary<ExtSpec> = fc.record({
  platform: fc.boolean(),
  hidden: fc.boolean(),
  tools: fc.uniqueArray(fc.record({ raw: fc.constantFrom(...RAW), appOnly: fc.boolean() }), {
    selector: (t) => t.raw,
    maxLength: 4,
  }),
});
const worldSpec: fc.Arbitrary<WorldSpec> = fc.record({
  github: extSpec,
  slack: extSpec,
  _vault: extSpec,
  misc: extSpec,
});

const publicName = (ext: string, raw: string) => (ext === "misc" ? raw : `${ext}__${raw}`);

/** The tools of the spec with what D3/R8 say about them, read off the spec alone. */
function facts(spec: WorldSpec) {
  return EXTENSIONS.flatMap((ext) =>
    spec[ext].tools.map((t) => ({
      name: publicName(ext, t.raw),
      tag: `${ext}/${t.raw}`,
      platform: spec[ext].platform,
      // R8: hidden when flagged or when the key starts with "_"; D3: app-only.
      modelVisible: !spec[ext].hidden && !ext.startsWith("_") && !t.appOnly,
    })),
  );
}
const allNames = (spec: WorldSpec) => facts(spec).map((f) => f.name);
const visibleNames = (spec: WorldSpec) =>
  facts(spec)
    .filter((f) => f.modelVisible)
    .map((f) => f.name);

/** The registry events a host would append for the spec (tools tagged to trace them back). */
function build(spec: WorldSpec): State {
  let state = initialState();
  const run = (command: Command) => {
    const d = decide(state, command);
    if (!d.ok) throw new Error(d.error.message);
    for (const e of d.events) state = evolve(state, e);
  };
  for (const ext of EXTENSIONS) {
    const s = spec[ext];
    run({
      type: "AddExtension",
      name: ext,
      kind: s.platform ? "platform" : "stdio",
      hidden: s.hidden,
      exposeUnprefixed: ext === "misc",
      configFingerprint: "fp",
    });
  }
  for (const ext of EXTENSIONS) {
    const tools: McpTool[] = spec[ext].tools.map((t) => ({
      name: t.raw,
      inputSchema: { type: "object" },
      _meta: { tag: `${ext}/${t.raw}`, ...(t.appOnly ? { ui: { visibility: ["app"] } } : {}) },
    }));
    run({ type: "RecordFetch", extension: ext, startedAtVersion: state.version, tools });
  }
  return state;
}

const recordedEnable = (callId: string, names: string[]): ToolledgerEvent[] => [
  { type: "EnableToolsRequested", v, callId, names },
  { type: "EnableToolsResponded", v, callId, ok: true },
];

/** A world, an always-load list drawn from every name (hidden and app-only included), and recorded enables. */
const scenario = worldSpec.chain((spec) =>
  fc.record({
    spec: fc.constant(spec),
    alwaysLoad: fc.subarray([...allNames(spec), "github__zz", "zz"]),
    enables: fc.array(fc.subarray(allNames(spec)), { maxLength: 3 }),
  }),
);

const sorted = (names: Iterable<string>) => [...names].sort();

describe("D2–D4 classification (property)", () => {
  it("D2/D3 always-load and recorded enables never reveal an app-only or hidden tool; D4 every model-visible tool is exactly eager or deferred", () => {
    fc.assert(
      fc.property(scenario, ({ spec, alwaysLoad, enables }) => {
        let state = evolve(build(spec), {
          type: "DeferralConfigured",
          v,
          mode: "lookup",
          alwaysLoad,
        });
        // Replay never re-validates, so recorded successes may name anything.
        state = replay(
          enables.flatMap((names, i) => recordedEnable(`r${i}`, names)),
          state,
        );
        const view = modelView(state);
        const byTag = new Map(facts(spec).map((f) => [f.tag, f]));
        for (const t of view.tools) {
          if (t.name === ENABLE_TOOLS_NAME) continue;
          expect(byTag.get(t._meta?.tag as string)?.modelVisible).toBe(true);
        }
        const visible = new Set(visibleNames(spec));
        const platform = new Set(
          facts(spec)
            .filter((f) => f.platform)
            .map((f) => f.name),
        );
        const enabled = new Set(enables.flat());
        const eager = [...visible].filter(
          (n) => platform.has(n) || alwaysLoad.includes(n) || enabled.has(n),
        );
        expect(view.tools.map((t) => t.name)).toEqual(sorted([...eager, ENABLE_TOOLS_NAME]));
        expect(view.deferred).toEqual(sorted([...visible].filter((n) => !eager.includes(n))));
        const listed = (view.systemPrompt ?? "")
          .split("\n")
          .filter((l) => l.startsWith("- "))
          .map((l) => l.slice(2));
        expect(listed).toEqual(view.deferred);
      }),
      { numRuns: 200 },
    );
  });
});

type Talk =
  | { op: "enable"; callId: number; names: string[] }
  | { op: "request"; callId: number; names: string[] }
  | { op: "respond"; callId: number; ok: boolean }
  | { op: "clear" }
  | { op: "compact" }
  | { op: "toggle"; lookup: boolean };

const talk = (names: string[]): fc.Arbitrary<Talk[]> => {
  const pool = [...names, "nope"];
  const someNames = fc.subarray(pool, { minLength: 1, maxLength: Math.min(3, pool.length) });
  const callId = fc.nat(5);
  return fc.array(
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({ op: fc.constant("enable" as const), callId, names: someNames }),
      },
      {
        weight: 2,
        arbitrary: fc.record({ op: fc.constant("request" as const), callId, names: someNames }),
      },
      {
        weight: 2,
        arbitrary: fc.record({ op: fc.constant("respond" as const), callId, ok: fc.boolean() }),
      },
      { weight: 1, arbitrary: fc.constant({ op: "clear" as const }) },
      { weight: 1, arbitrary: fc.constant({ op: "compact" as const }) },
      {
        weight: 1,
        arbitrary: fc.record({ op: fc.constant("toggle" as const), lookup: fc.boolean() }),
      },
    ),
    { maxLength: 15 },
  );
};

/** Appends a conversation to `state` as a host would; returns the events and the final state. */
function converse(state: State, steps: Talk[]): { events: ToolledgerEvent[]; state: State } {
  const events: ToolledgerEvent[] = [];
  const append = (es: ToolledgerEvent[]) => {
    for (const e of es) {
      events.push(e);
      state = evolve(state, e);
    }
  };
  for (const s of steps) {
    if (s.op === "request")
      append([{ type: "EnableToolsRequested", v, callId: `c${s.callId}`, names: s.names }]);
    else if (s.op === "respond")
      append([{ type: "EnableToolsResponded", v, callId: `c${s.callId}`, ok: s.ok }]);
    else if (s.op === "toggle")
      append([
        { type: "DeferralConfigured", v, mode: s.lookup ? "lookup" : "off", alwaysLoad: [] },
      ]);
    else {
      const command: Command =
        s.op === "enable"
          ? { type: "EnableTools", callId: `c${s.callId}`, names: s.names }
          : { type: s.op === "clear" ? "Clear" : "Compact" };
      const d = decide(state, command);
      if (d.ok) append(d.events);
    }
  }
  return { events, state };
}

const withTalk = worldSpec.chain((spec) =>
  fc.record({ spec: fc.constant(spec), steps: talk(allNames(spec)) }),
);

describe("D4 deferral off (property)", () => {
  it("D4 with deferral off the model view is every model-visible tool, whatever enables the log holds", () => {
    fc.assert(
      fc.property(withTalk, ({ spec, steps }) => {
        const registry = build(spec);
        const { events } = converse(registry, steps);
        const log = [
          ...events,
          { type: "DeferralConfigured", v, mode: "off", alwaysLoad: [] } as ToolledgerEvent,
        ];
        const withEnables = replay(log, registry);
        const withoutEnables = replay(
          log.filter((e) => e.type === "DeferralConfigured"),
          registry,
        );
        expect(modelView(withEnables)).toEqual(modelView(withoutEnables));
        expect(modelView(withEnables).tools.map((t) => t.name)).toEqual(sorted(visibleNames(spec)));
        expect(modelView(withEnables).systemPrompt).toBeNull();
      }),
      { numRuns: 150 },
    );
  });
});

describe("D8 clear (property)", () => {
  it("D8 Cleared empties the enabled set and pending requests, keeps the registry, and later enables rebuild exactly what they name", () => {
    fc.assert(
      fc.property(
        withTalk.chain(({ spec, steps }) =>
          fc.record({
            spec: fc.constant(spec),
            steps: fc.constant(steps),
            pick: fc.subarray(visibleNames(spec)),
          }),
        ),
        ({ spec, steps, pick }) => {
          const lookup = evolve(build(spec), {
            type: "DeferralConfigured",
            v,
            mode: "lookup",
            alwaysLoad: [],
          });
          const talked = converse(lookup, steps).state;
          // The conversation may have switched deferral off; the law is about lookup mode.
          const before = evolve(talked, {
            type: "DeferralConfigured",
            v,
            mode: "lookup",
            alwaysLoad: [],
          });
          const clear = decide(before, { type: "Clear" });
          if (!clear.ok) throw new Error(clear.error.message);
          const cleared = replay(clear.events, before);
          expect(cleared.enabled).toEqual([]);
          expect(cleared.pending).toEqual([]);
          expect(cleared.extensions).toBe(before.extensions);
          expect(cleared.version).toBe(before.version);
          expect(cleared.deferral).toBe(before.deferral);

          const platform = new Set(
            facts(spec)
              .filter((f) => f.platform)
              .map((f) => f.name),
          );
          const deferred = visibleNames(spec).filter((n) => !platform.has(n));
          expect(modelView(cleared).deferred).toEqual(sorted(deferred));

          const toEnable = pick.filter((n) => !platform.has(n));
          let after = cleared;
          if (toEnable.length > 0) {
            const d = decide(cleared, {
              type: "EnableTools",
              callId: "after-clear",
              names: toEnable,
            });
            if (!d.ok) throw new Error(d.error.message);
            after = replay(d.events, cleared);
          }
          expect(after.enabled).toEqual(sorted(new Set(toEnable)));
          expect(modelView(after).deferred).toEqual(
            sorted(deferred.filter((n) => !toEnable.includes(n))),
          );
          for (const n of deferred) {
            expect(checkCall(after, n).ok).toBe(toEnable.includes(n));
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
