import {
  type Command,
  decide,
  evolve,
  initialState,
  type McpTool,
  type State,
} from "@toolledger/core";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { longSession } from "../_testing/longSession.js";
import { contextTokens } from "../contextTokens.js";
import { ContextTokenSeries, countContextTokens } from "./contextTokenSeries.js";

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

function build(commands: readonly fc.RecordValue<unknown>[] | unknown[]): State[] {
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
        const names = [...(state.extensions ? [] : [])];
        const deferred = stateNames(state);
        for (const i of raw.pick as number[])
          if (deferred.length > 0) names.push(deferred[i % deferred.length]!);
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

function stateNames(state: State): string[] {
  return contextTokensNames(state);
}

import { listTools } from "@toolledger/core";

function contextTokensNames(state: State): string[] {
  return listTools(state).map((t) => t.publicName);
}

describe("the view's incremental token count equals contextTokens (the figure tools and the demo print)", () => {
  test("property: arbitrary registries (collisions, hidden, platform, app-only, unprefixed, a registry enable_tools, odd names)", () => {
    fc.assert(
      fc.property(fc.array(command, { minLength: 1, maxLength: 40 }), (commands) => {
        for (const state of build(commands))
          expect(countContextTokens(state)).toEqual(contextTokens(state));
      }),
      { numRuns: 300 },
    );
  });

  test("along a long session, the series holds the exact figure at every change", () => {
    let state = initialState();
    const series = new ContextTokenSeries();
    const events = longSession(4000, 5);
    const exact: [number, number, number][] = [];
    events.forEach((e, i) => {
      state = evolve(state, e);
      series.add(i + 1, state);
      const t = contextTokens(state);
      const prev = exact.at(-1);
      if (!prev || prev[1] !== t.received || prev[2] !== t.deferralOff)
        exact.push([i + 1, t.received, t.deferralOff]);
    });
    expect(series.points).toEqual(exact);
    expect(series.points.length).toBeGreaterThan(20);
  });
});
