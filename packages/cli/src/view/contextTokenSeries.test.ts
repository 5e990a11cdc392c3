import {
  type Command,
  decide,
  evolve,
  getExtension,
  initialState,
  isAppOnly,
  listTools,
  type McpTool,
  modelView,
  type State,
} from "@toolledger/core";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { longSession } from "../../testing/longSession.js";
import { contextTokens } from "../output/contextTokens.js";
import { ContextTokenSeries, countContextTokens } from "./contextTokenSeries.js";
import type { TokenPoint } from "./viewData.js";

const EXTENSIONS = [
  "a",
  "a__b",
  "notes",
  "_sys",
  "Dev Tools",
  "web.search",
  "plat",
  "bare",
  "bare2",
];
const RAW = [
  "b__c",
  "c",
  "add",
  "add_",
  "get-x",
  "dots.name",
  "ünï",
  "search",
  "enable_tools",
  "notes__add",
  "a__b__c",
  "x__y",
  "list",
  "zz",
];

const tool = fc.record({
  name: fc.constantFrom(...RAW),
  description: fc.option(
    fc.constantFrom("Adds a note.", "Search the web for a query.", "ß ünïcode — text", ""),
    { nil: undefined },
  ),
  appOnly: fc.boolean(),
  props: fc.integer({ min: 0, max: 3 }),
});

const command = fc.oneof(
  // R10's examples: a's b__c and a__b's c; notes' add and the unprefixed bare's notes__add.
  fc.constantFrom(
    { type: "fetch", ext: "a", tools: [{ name: "b__c", appOnly: false, props: 1 }] },
    { type: "fetch", ext: "a__b", tools: [{ name: "c", appOnly: false, props: 2 }] },
    { type: "fetch", ext: "notes", tools: [{ name: "add", appOnly: false, props: 0 }] },
    { type: "fetch", ext: "bare", tools: [{ name: "notes__add", appOnly: false, props: 3 }] },
    { type: "fetch", ext: "bare2", tools: [{ name: "enable_tools", appOnly: false, props: 1 }] },
  ),
  fc.record({
    type: fc.constant("add"),
    ext: fc.constantFrom(...EXTENSIONS),
    hidden: fc.boolean(),
    unprefixed: fc.boolean(),
  }),
  fc.record({
    type: fc.constant("fetch"),
    ext: fc.constantFrom(...EXTENSIONS),
    tools: fc.array(tool, { maxLength: 6 }),
  }),
  fc.record({ type: fc.constant("remove"), ext: fc.constantFrom(...EXTENSIONS) }),
  fc.record({
    type: fc.constant("deferral"),
    mode: fc.constantFrom("off", "lookup"),
    always: fc.array(
      fc.constantFrom("a__b__c", "notes__add", "c", "plat__list", "nope", "enable_tools"),
      { maxLength: 3 },
    ),
  }),
  fc.record({
    type: fc.constant("enable"),
    pick: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ type: fc.constant("clear") }),
);

function build(commands: readonly unknown[]): State[] {
  let state = initialState();
  const states: State[] = [];
  let call = 0;
  const apply = (c: Command) => {
    const d = decide(state, c);
    if (!d.ok) return;
    for (const e of d.events) {
      state = evolve(state, e);
      states.push(state);
    }
  };
  for (const raw of commands as Record<string, unknown>[]) {
    switch (raw.type) {
      case "add":
        apply({
          type: "AddExtension",
          name: raw.ext as string,
          kind: raw.ext === "plat" ? "platform" : "stdio",
          hidden: raw.hidden as boolean,
          exposeUnprefixed: (raw.ext as string).startsWith("bare") || (raw.unprefixed as boolean),
          configFingerprint: "fp",
        });
        break;
      case "fetch": {
        if (getExtension(state, raw.ext as string) === undefined) {
          apply({
            type: "AddExtension",
            name: raw.ext as string,
            kind: raw.ext === "plat" ? "platform" : "stdio",
            exposeUnprefixed: (raw.ext as string).startsWith("bare"),
            configFingerprint: "fp",
          });
        }
        const tools: McpTool[] = (
          raw.tools as { name: string; description?: string; appOnly: boolean; props: number }[]
        ).map((t) => ({
          name: t.name,
          ...(t.description === undefined ? {} : { description: t.description }),
          inputSchema: {
            type: "object",
            properties: Object.fromEntries(
              Array.from({ length: t.props }, (_, i) => [`p${i}`, { type: "string" }]),
            ),
          },
          ...(t.appOnly ? { _meta: { ui: { visibility: ["app"] } } } : {}),
        }));
        apply({
          type: "RecordFetch",
          extension: raw.ext as string,
          startedAtVersion: state.version,
          tools,
        });
        break;
      }
      case "remove":
        apply({ type: "RemoveExtension", extension: raw.ext as string });
        break;
      case "deferral":
        apply({
          type: "ConfigureDeferral",
          mode: raw.mode as "off" | "lookup",
          alwaysLoad: raw.always as string[],
        });
        break;
      case "enable": {
        const names: string[] = [];
        const listed = listTools(state).map((t) => t.publicName);
        for (const i of raw.pick as number[])
          if (listed.length > 0) names.push(listed[i % listed.length]!);
        if (names.length > 0) apply({ type: "EnableTools", callId: `c${++call}`, names });
        break;
      }
      case "clear":
        apply({ type: "Clear" });
        break;
    }
  }
  return states;
}

describe("the view's incremental token count equals contextTokens (the figure tools and the demo print)", () => {
  test("property: arbitrary registries (collisions, hidden, platform, app-only, unprefixed, a registry enable_tools, odd names)", () => {
    const seen = { prompt: 0, collisions: 0, enabled: 0, shadowed: 0, hidden: 0, appOnly: 0 };
    fc.assert(
      fc.property(fc.array(command, { minLength: 1, maxLength: 40 }), (commands) => {
        for (const state of build(commands)) {
          expect(countContextTokens(state)).toEqual(contextTokens(state));
          if (modelView(state).systemPrompt !== null) seen.prompt++;
          if (Object.keys(state.collisions).length > 0) seen.collisions++;
          if (state.enabled.length > 0) seen.enabled++;
          const all = listTools(state, { includeHidden: true });
          if (all.some((t) => t.publicName === "enable_tools")) seen.shadowed++;
          if (all.length > listTools(state).length) seen.hidden++;
          if (all.some(isAppOnly)) seen.appOnly++;
        }
      }),
      { numRuns: 300 },
    );
    // The generator reaches every case the count has to get right.
    for (const [k, n] of Object.entries(seen)) expect(n, k).toBeGreaterThan(10);
  });

  test("R14: the deferred names' last prompt line is the greatest served name, not public name", () => {
    // Found by the property above (seed -1535751566): `a__ünï` is served as a wire name.
    const states = build([
      { type: "deferral", mode: "lookup", always: [] },
      {
        type: "fetch",
        ext: "a",
        tools: [
          { name: "ünï", appOnly: false, props: 0 },
          { name: "add_", appOnly: false, props: 0 },
        ],
      },
    ]);
    const state = states.at(-1)!;
    expect(listTools(state).some((t) => t.wireName !== t.publicName)).toBe(true);
    expect(countContextTokens(state)).toEqual(contextTokens(state));
  });

  test("along a long session, the series holds the exact figure at every change", () => {
    let state = initialState();
    const series = new ContextTokenSeries();
    const events = longSession(4000, 5);
    const exact: TokenPoint[] = [];
    events.forEach((e, i) => {
      state = evolve(state, e);
      series.add(i + 1, state);
      const t = contextTokens(state);
      const prev = exact.at(-1);
      if (!prev || prev[1] !== t.received || prev[2] !== t.deferralOff || prev[3] !== t.lookup)
        exact.push(
          t.lookup === undefined
            ? [i + 1, t.received, t.deferralOff]
            : [i + 1, t.received, t.deferralOff, t.lookup],
        );
    });
    expect(series.points).toEqual(exact);
    expect(series.points.length).toBeGreaterThan(20);
  });
});
