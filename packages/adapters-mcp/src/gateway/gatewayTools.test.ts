import {
  decide,
  ENABLE_TOOLS_NAME,
  initialState,
  replay,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import { describe, expect, it } from "vitest";
import { gatewayTools } from "./gatewayTools.js";

function run(
  state: State,
  command: Parameters<typeof decide>[1],
): { state: State; events: ToolledgerEvent[] } {
  const decision = decide(state, command);
  if (!decision.ok) throw new Error(decision.error.message);
  return { state: replay(decision.events, state), events: decision.events };
}

function registry(mode: "off" | "lookup"): State {
  let state = initialState();
  state = run(state, { type: "ConfigureDeferral", mode, alwaysLoad: ["calc__add"] }).state;
  state = run(state, {
    type: "AddExtension",
    name: "calc",
    kind: "stdio",
    configFingerprint: "f1",
  }).state;
  state = run(state, {
    type: "AddExtension",
    name: "notes",
    kind: "stdio",
    configFingerprint: "f2",
  }).state;
  const schema = { type: "object" };
  for (const [extension, names] of [
    ["calc", ["add", "mul"]],
    ["notes", ["write"]],
  ] as const) {
    state = run(state, {
      type: "RecordFetch",
      extension,
      startedAtVersion: state.version,
      tools: names.map((name) => ({ name, inputSchema: schema })),
    }).state;
  }
  return state;
}

describe("gatewayTools (D4: the served list)", () => {
  it("serves every visible tool and no enable_tools with deferral off", () => {
    expect(gatewayTools(registry("off")).map((t) => t.name)).toEqual([
      "calc__add",
      "calc__mul",
      "notes__write",
    ]);
  });

  it("serves the eager tools plus enable_tools, whose description lists the deferred names", () => {
    const tools = gatewayTools(registry("lookup"));
    expect(tools.map((t) => t.name)).toEqual(["calc__add", ENABLE_TOOLS_NAME]);
    expect(tools[1]?.description).toMatch(/Deferred tools: calc__mul, notes__write$/);
  });

  it("is memoised per state, so a tools/list costs no rebuilding", () => {
    const state = registry("lookup");
    expect(gatewayTools(state)).toBe(gatewayTools(state));
  });

  it("moves an enabled tool from the description into the list (D5)", () => {
    const state = run(registry("lookup"), {
      type: "EnableTools",
      callId: "c",
      names: ["notes__write"],
    }).state;
    const tools = gatewayTools(state);
    expect(tools.map((t) => t.name)).toEqual(["calc__add", ENABLE_TOOLS_NAME, "notes__write"]);
    expect(tools[1]?.description).toMatch(/Deferred tools: calc__mul$/);
  });
});
