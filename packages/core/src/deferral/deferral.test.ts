import { describe, expect, it } from "vitest";
import { checkCall } from "../calls/checkCall.js";
import { decide } from "../decide/decide.js";
import {
  type DeferralMode,
  type EnableToolsResponded,
  type ToolledgerEvent,
  EVENT_SCHEMA_VERSION as v,
} from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { type Host, host, tool } from "../fold/fixtures.test-helpers.js";
import { replay, replayFromLatestCompaction } from "../fold/replay.js";
import type { State } from "../fold/state.js";
import { diagnostics } from "../registry/diagnostics.js";
import { listTools } from "../registry/listTools.js";
import { classifyTool } from "./classifyTool.js";
import { ENABLE_TOOLS_NAME, modelView } from "./modelView.js";
import { parseDeferralConfig } from "./parseDeferralConfig.js";

const appOnly = (name: string) => tool(name, { _meta: { ui: { visibility: ["app"] } } });

/**
 * A registry as a host builds it: a platform extension, two MCP servers (one with an
 * app-only tool), a hidden-by-key and a hidden-by-flag extension, then the deferral config.
 */
function world(mode: DeferralMode = "lookup", alwaysLoad: string[] = []): Host {
  const h = host();
  h.add("developer", { kind: "platform" });
  h.add("github");
  h.add("slack", { kind: "streamable_http" });
  h.add("_vault");
  h.add("notes", { hidden: true });
  h.fetch("developer", ["shell"]);
  h.fetch("github", ["create_issue", "list_issues", appOnly("dashboard")]);
  h.fetch("slack", ["post_message"]);
  h.fetch("_vault", ["token"]);
  h.fetch("notes", ["read"]);
  h.run({ type: "ConfigureDeferral", mode, alwaysLoad });
  return h;
}

const viewNames = (s: State) => modelView(s).tools.map((t) => t.name);

/** The single response the decider returned for an enable command. */
function enable(h: Host, callId: string, names: string[]): EnableToolsResponded {
  const events = h.run({ type: "EnableTools", callId, names });
  expect(events.map((e) => e.type)).toEqual(["EnableToolsRequested", "EnableToolsResponded"]);
  return events[1] as EnableToolsResponded;
}

const anomalies = (s: State) =>
  diagnostics(s).flatMap((d) => (d.kind === "anomaly" ? [`${d.anomaly}:${d.callId}`] : []));

describe("D1 config", () => {
  it.each([
    ["unset", {}],
    ["empty", { GOOSE_TOOL_DEFERRAL: "" }],
    ["off (decision log)", { GOOSE_TOOL_DEFERRAL: "off" }],
  ])("D1 %s means off", (_label, env) => {
    expect(parseDeferralConfig(env)).toEqual({ ok: true, config: { mode: "off", alwaysLoad: [] } });
  });

  it("D1 lookup turns deferral on", () => {
    expect(parseDeferralConfig({ GOOSE_TOOL_DEFERRAL: "lookup" })).toEqual({
      ok: true,
      config: { mode: "lookup", alwaysLoad: [] },
    });
  });

  it.each(["on", "LOOKUP", " lookup", "lookup ", "search", "true", "1"])(
    "D1 %j is a configuration error naming the variable, the value and the allowed values",
    (value) => {
      const r = parseDeferralConfig({ GOOSE_TOOL_DEFERRAL: value });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.code).toBe("INVALID_DEFERRAL_MODE");
      expect(r.error.variable).toBe("GOOSE_TOOL_DEFERRAL");
      expect(r.error.value).toBe(value);
      expect(r.error.message).toContain("GOOSE_TOOL_DEFERRAL");
      expect(r.error.message).toContain(JSON.stringify(value));
      expect(r.error.message).toContain('"lookup"');
      expect(r.error.message).toContain('"off"');
    },
  );
});

describe("D2 always-load list", () => {
  it("D2 trims entries and drops empty ones", () => {
    const r = parseDeferralConfig({
      GOOSE_TOOL_DEFERRAL: "lookup",
      GOOSE_TOOL_DEFERRAL_ALWAYS_LOAD: " github__create_issue ,, ,\tslack__post_message,",
    });
    expect(r).toEqual({
      ok: true,
      config: { mode: "lookup", alwaysLoad: ["github__create_issue", "slack__post_message"] },
    });
  });

  it("D2 a list of only commas and blanks is empty", () => {
    const r = parseDeferralConfig({
      GOOSE_TOOL_DEFERRAL: "lookup",
      GOOSE_TOOL_DEFERRAL_ALWAYS_LOAD: " , ,, ",
    });
    expect(r).toEqual({ ok: true, config: { mode: "lookup", alwaysLoad: [] } });
  });

  it("D2 matching is exact and case-sensitive: a differently cased entry does not make the tool eager", () => {
    const h = world("lookup", ["GitHub__create_issue", "github__create"]);
    expect(viewNames(h.state)).not.toContain("github__create_issue");
    expect(modelView(h.state).deferred).toContain("github__create_issue");
    expect(checkCall(h.state, "github__create_issue").ok).toBe(false);
  });

  it("D2 entries naming no current tool are kept and reported as unknown_always_load; the tool is eager once it appears", () => {
    const h = world("lookup", ["github__close_issue", "github__create_issue"]);
    const unknown = () =>
      diagnostics(h.state).flatMap((d) => (d.kind === "unknown_always_load" ? [d.name] : []));
    expect(unknown()).toEqual(["github__close_issue"]);
    expect(h.state.deferral.alwaysLoad).toEqual(["github__close_issue", "github__create_issue"]);
    expect(viewNames(h.state)).toContain("github__create_issue");

    h.fetch("github", ["create_issue", "close_issue"]);
    expect(unknown()).toEqual([]);
    expect(viewNames(h.state)).toContain("github__close_issue");
  });

  it("D2 the always-load list matters only when deferral is on: no unknown_always_load while off", () => {
    const h = world("off", ["github__close_issue"]);
    expect(diagnostics(h.state).filter((d) => d.kind === "unknown_always_load")).toEqual([]);
    h.run({ type: "ConfigureDeferral", mode: "lookup", alwaysLoad: ["github__close_issue"] });
    expect(diagnostics(h.state).filter((d) => d.kind === "unknown_always_load")).toHaveLength(1);
  });

  it("D2 entries naming hidden tools are reported as unknown (R8) and reveal nothing", () => {
    const h = world("lookup", ["_vault__token", "notes__read"]);
    const unknown = diagnostics(h.state).flatMap((d) =>
      d.kind === "unknown_always_load" ? [d.name] : [],
    );
    expect(unknown).toEqual(["_vault__token", "notes__read"]);
    expect(viewNames(h.state)).toEqual(["developer__shell", ENABLE_TOOLS_NAME]);
  });

  it("D2/D3 an entry naming an app-only tool reveals nothing", () => {
    const h = world("lookup", ["github__dashboard"]);
    expect(viewNames(h.state)).not.toContain("github__dashboard");
    expect(modelView(h.state).deferred).not.toContain("github__dashboard");
    expect(modelView(h.state).systemPrompt).not.toContain("github__dashboard");
  });

  it("D2 the list matters only when deferral is on", () => {
    const off = world("off", ["github__create_issue"]);
    const plainOff = world("off");
    expect(modelView(off.state)).toEqual(modelView(plainOff.state));
  });
});

describe("D3 visibility", () => {
  const cases: [string, "deferred" | "app-only", Record<string, unknown> | undefined][] = [
    ["no _meta", "deferred", undefined],
    ["_meta without ui", "deferred", { other: 1 }],
    ["ui without visibility", "deferred", { ui: {} }],
    ["ui that is not an object", "deferred", { ui: "app" }],
    ["ui null", "deferred", { ui: null }],
    ["visibility a string", "deferred", { ui: { visibility: "app" } }],
    ["visibility an object", "deferred", { ui: { visibility: { model: true } } }],
    ["visibility null", "deferred", { ui: { visibility: null } }],
    ["visibility containing model", "deferred", { ui: { visibility: ["app", "model"] } }],
    ["visibility an array without model", "app-only", { ui: { visibility: ["app"] } }],
    ["visibility an empty array", "app-only", { ui: { visibility: [] } }],
    ["visibility with a differently cased Model", "app-only", { ui: { visibility: ["Model"] } }],
  ];

  it.each(cases)("D3 %s → %s", (_label, expected, meta) => {
    const h = host();
    h.add("srv");
    h.fetch("srv", [meta === undefined ? tool("t") : tool("t", { _meta: meta })]);
    h.run({ type: "ConfigureDeferral", mode: "lookup" });
    const t = listTools(h.state)[0]!;
    expect(classifyTool(h.state, t).class).toBe(expected);
    expect(modelView(h.state).deferred.includes("srv__t")).toBe(expected === "deferred");

    h.run({ type: "ConfigureDeferral", mode: "off" });
    expect(viewNames(h.state).includes("srv__t")).toBe(expected === "deferred");
  });

  it("D3 an app-only tool of a platform extension is still not shown", () => {
    const h = host();
    h.add("developer", { kind: "platform" });
    h.fetch("developer", ["shell", appOnly("panel")]);
    h.run({ type: "ConfigureDeferral", mode: "lookup" });
    expect(viewNames(h.state)).toEqual(["developer__shell", ENABLE_TOOLS_NAME]);
  });
});

describe("D4 classes and the model view", () => {
  it("D4 platform, always-load and enabled tools are eager; every other visible MCP tool is deferred", () => {
    const h = world("lookup", ["slack__post_message"]);
    enable(h, "c1", ["github__list_issues"]);
    const classes = Object.fromEntries(
      listTools(h.state, { includeHidden: true }).map((t) => [
        t.publicName,
        classifyTool(h.state, t),
      ]),
    );
    expect(classes).toEqual({
      _vault__token: { class: "hidden" },
      developer__shell: { class: "eager", reason: "platform" },
      github__create_issue: { class: "deferred" },
      github__dashboard: { class: "app-only" },
      github__list_issues: { class: "eager", reason: "enabled" },
      notes__read: { class: "hidden" },
      slack__post_message: { class: "eager", reason: "always-load" },
    });
    expect(viewNames(h.state)).toEqual([
      "developer__shell",
      ENABLE_TOOLS_NAME,
      "github__list_issues",
      "slack__post_message",
    ]);
    expect(modelView(h.state).deferred).toEqual(["github__create_issue"]);
  });

  it("D4/R12 sorts byte-wise by public name (not by UTF-16 code unit); the model view by the wire names it serves (R14)", () => {
    const raw = ["zeta", "Zeta", "a\u{1F600}", "a\uE000", "a_b", "a"];
    const h = host();
    h.add("core", { kind: "platform", exposeUnprefixed: true });
    h.add("mcp", { exposeUnprefixed: true });
    h.fetch("core", raw);
    h.fetch(
      "mcp",
      raw.map((n) => `${n}2`),
    );
    h.run({ type: "ConfigureDeferral", mode: "lookup" });
    // Code point order: "Z" < "a" < "a_" < "a\uE000" < "a\u{1F600}" < "e" < "z".
    expect(listTools(h.state, { extension: "core" }).map((t) => t.publicName)).toEqual([
      "Zeta",
      "a",
      "a_b",
      "a\uE000",
      "a\u{1F600}",
      "zeta",
    ]);
    // Non-ASCII names are served as wire names (readable head, hash), sorted as served.
    const served = viewNames(h.state);
    expect(served).toEqual([...served].sort());
    expect(served.slice(0, 2)).toEqual(["Zeta", "a"]);
    expect(served).toEqual(expect.arrayContaining(["a_b", ENABLE_TOOLS_NAME, "zeta"]));
    expect(served.filter((n) => /^a__[0-9a-z]{8}$/.test(n))).toHaveLength(2);
    const deferred = modelView(h.state).deferred;
    expect(deferred).toEqual([...deferred].sort());
    expect(deferred).toHaveLength(6);
    for (const name of [...served, ...deferred]) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const lines = modelView(h.state).systemPrompt!.split("\n");
    expect(lines.filter((l) => l.startsWith("- "))).toEqual(deferred.map((n) => `- ${n}`));
  });

  it("D4 the enable_tools tool and the prompt section exist only in lookup mode", () => {
    const on = world("lookup");
    const view = modelView(on.state);
    const enableTool = view.tools.find((t) => t.name === ENABLE_TOOLS_NAME);
    expect(enableTool?.inputSchema).toMatchObject({
      type: "object",
      properties: { names: { type: "array", items: { type: "string" } } },
      required: ["names"],
    });
    expect(view.systemPrompt).toContain(ENABLE_TOOLS_NAME);
    expect(view.systemPrompt).toContain("exact");

    const off = world("off");
    expect(viewNames(off.state)).toEqual([
      "developer__shell",
      "github__create_issue",
      "github__list_issues",
      "slack__post_message",
    ]);
    expect(modelView(off.state).deferred).toEqual([]);
    expect(modelView(off.state).systemPrompt).toBeNull();
  });

  it("D4 (decision log) with nothing deferred, lookup mode keeps enable_tools and omits the prompt section", () => {
    const h = world("lookup", ["github__create_issue", "github__list_issues"]);
    enable(h, "c1", ["slack__post_message"]);
    const view = modelView(h.state);
    expect(view.deferred).toEqual([]);
    expect(view.systemPrompt).toBeNull();
    expect(view.tools.map((t) => t.name)).toContain(ENABLE_TOOLS_NAME);
  });

  it("D4 the prompt section lists names only, no schemas or descriptions", () => {
    const h = host();
    h.add("srv");
    h.fetch("srv", [
      tool("t", {
        description: "SECRET-DESCRIPTION",
        inputSchema: { type: "object", title: "SCHEMA" },
      }),
    ]);
    h.run({ type: "ConfigureDeferral", mode: "lookup" });
    const prompt = modelView(h.state).systemPrompt!;
    expect(prompt).toContain("- srv__t");
    expect(prompt).not.toContain("SECRET-DESCRIPTION");
    expect(prompt).not.toContain("SCHEMA");
  });

  it("D4 (decision log) the built-in enable_tools wins over a registry tool of that name, eager or deferred", () => {
    const imposter = tool(ENABLE_TOOLS_NAME, { description: "not the real one" });
    for (const kind of ["platform", "stdio"]) {
      const h = host();
      h.add("weird", { kind, exposeUnprefixed: true });
      h.fetch("weird", [imposter, "other"]);
      h.run({ type: "ConfigureDeferral", mode: "lookup" });
      const view = modelView(h.state);
      expect(view.tools.filter((t) => t.name === ENABLE_TOOLS_NAME)).toHaveLength(1);
      expect(view.tools.find((t) => t.name === ENABLE_TOOLS_NAME)?.description).not.toBe(
        "not the real one",
      );
      expect(view.deferred).not.toContain(ENABLE_TOOLS_NAME);
    }
  });
});

describe("D5 enable_tools", () => {
  it("D5 an empty list fails and enables nothing", () => {
    const h = world();
    const before = modelView(h.state);
    const r = enable(h, "c1", []);
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe("EMPTY_REQUEST");
    expect(r.error?.message).toContain(ENABLE_TOOLS_NAME);
    expect(h.state.enabled).toEqual([]);
    expect(modelView(h.state)).toEqual(before);
  });

  it("D5 unknown, app-only and hidden names fail the whole request, and one error names every offending entry", () => {
    const h = world();
    const r = enable(h, "c1", [
      "github__create_issue",
      "github__nope",
      "github__dashboard",
      "_vault__token",
      "notes__read",
      "slack__post_message",
    ]);
    expect(r.ok).toBe(false);
    expect(r.error?.invalid.map((i) => i.name)).toEqual([
      "github__nope",
      "github__dashboard",
      "_vault__token",
      "notes__read",
    ]);
    for (const bad of ["github__nope", "github__dashboard", "_vault__token", "notes__read"]) {
      expect(r.error?.message).toContain(JSON.stringify(bad));
    }
    expect(r.error?.message).not.toContain('"github__create_issue"');
    expect(h.state.enabled).toEqual([]);
    expect(modelView(h.state).deferred).toEqual([
      "github__create_issue",
      "github__list_issues",
      "slack__post_message",
    ]);
  });

  it("D5 (decision log) a hidden name reads as unknown, an app-only one as app-only", () => {
    const h = world();
    const r = enable(h, "c1", ["_vault__token", "github__dashboard"]);
    const reasons = Object.fromEntries(r.error!.invalid.map((i) => [i.name, i.reason]));
    expect(reasons._vault__token).toMatch(/unknown/);
    expect(reasons._vault__token).not.toMatch(/hidden|vault/);
    expect(reasons.github__dashboard).toMatch(/app-only/);
  });

  it("D5 suggests close visible names, never hidden or app-only ones", () => {
    const h = world();
    const r = enable(h, "c1", ["github__create_isue", "github__dashbord", "_vault__tokn"]);
    const suggestions = Object.fromEntries(r.error!.invalid.map((i) => [i.name, i.suggestions]));
    expect(suggestions.github__create_isue).toContain("github__create_issue");
    expect(r.error?.message).toContain("github__create_issue");
    expect(suggestions.github__dashbord).not.toContain("github__dashboard");
    expect(suggestions._vault__tokn).not.toContain("_vault__token");
  });

  it("D5 names that are already eager are accepted and change nothing the model sees", () => {
    const h = world("lookup", ["slack__post_message"]);
    const before = modelView(h.state);
    const r = enable(h, "c1", ["developer__shell", "slack__post_message"]);
    expect(r.ok).toBe(true);
    expect(modelView(h.state)).toEqual(before);
    expect(anomalies(h.state)).toEqual([]);
  });

  it("D5 a successful enable puts the schemas in the model view and takes them off the deferred list", () => {
    const h = world();
    const schema = { type: "object", properties: { title: { type: "string" } } };
    h.fetch("github", [tool("create_issue", { inputSchema: schema }), "list_issues"]);
    const r = enable(h, "c1", ["github__create_issue"]);
    expect(r).toMatchObject({ ok: true, callId: "c1" });
    expect(r.error).toBeUndefined();
    const view = modelView(h.state);
    expect(view.tools.find((t) => t.name === "github__create_issue")?.inputSchema).toEqual(schema);
    expect(view.deferred).toEqual(["github__list_issues", "slack__post_message"]);
  });

  it("D5 (decision log) a call id that is pending or already answered is refused before any event", () => {
    const h = world();
    enable(h, "c1", ["github__create_issue"]);
    const again = decide(h.state, {
      type: "EnableTools",
      callId: "c1",
      names: ["slack__post_message"],
    });
    expect(again).toMatchObject({ ok: false, error: { code: "DUPLICATE_CALL_ID" } });

    const pending = evolve(h.state, {
      type: "EnableToolsRequested",
      v,
      callId: "c2",
      names: ["x"],
    });
    expect(
      decide(pending, { type: "EnableTools", callId: "c2", names: ["slack__post_message"] }),
    ).toMatchObject({
      ok: false,
      error: { code: "DUPLICATE_CALL_ID" },
    });
  });

  it("D5 enabling is checked against the current registry: a tool removed since it was listed is unknown", () => {
    const h = world();
    h.run({ type: "RemoveExtension", extension: "slack" });
    const r = enable(h, "c1", ["slack__post_message"]);
    expect(r.ok).toBe(false);
    expect(r.error?.invalid.map((i) => i.name)).toEqual(["slack__post_message"]);
  });
});

describe("D6 pairing anomalies", () => {
  const req = (callId: string, names: string[]): ToolledgerEvent => ({
    type: "EnableToolsRequested",
    v,
    callId,
    names,
  });
  const res = (callId: string, ok: boolean): ToolledgerEvent => ({
    type: "EnableToolsResponded",
    v,
    callId,
    ok,
  });

  it("D6 a request without a response enables nothing and stays pending (no anomaly)", () => {
    const s = replay([...world().log, req("a", ["github__create_issue"])]);
    expect(s.enabled).toEqual([]);
    expect(s.pending).toEqual([{ callId: "a", names: ["github__create_issue"] }]);
    expect(anomalies(s)).toEqual([]);
  });

  it("D6 a response without a request enables nothing and is an anomaly", () => {
    const s = replay([...world().log, res("a", true)]);
    expect(s.enabled).toEqual([]);
    expect(anomalies(s)).toEqual(["response_without_request:a"]);
  });

  it("D6 a response to a different call id does not pair", () => {
    const s = replay([...world().log, req("a", ["github__create_issue"]), res("b", true)]);
    expect(s.enabled).toEqual([]);
    expect(s.pending.map((p) => p.callId)).toEqual(["a"]);
    expect(anomalies(s)).toEqual(["response_without_request:b"]);
  });

  it("D6 a failed response enables nothing, ends the request and is an anomaly", () => {
    const s = replay([...world().log, req("a", ["github__create_issue"]), res("a", false)]);
    expect(s.enabled).toEqual([]);
    expect(s.pending).toEqual([]);
    expect(anomalies(s)).toEqual(["failed_response:a"]);
  });

  it("D6 a second response to the same call id adds nothing and is an anomaly", () => {
    const s = replay([
      ...world().log,
      req("a", ["github__create_issue"]),
      res("a", true),
      res("a", true),
    ]);
    expect(s.enabled).toEqual(["github__create_issue"]);
    expect(anomalies(s)).toEqual(["duplicate_response:a"]);
  });

  it("D6 a successful second response after a failed one still enables nothing", () => {
    const s = replay([
      ...world().log,
      req("a", ["github__create_issue"]),
      res("a", false),
      res("a", true),
    ]);
    expect(s.enabled).toEqual([]);
    expect(anomalies(s)).toEqual(["failed_response:a", "duplicate_response:a"]);
  });

  it("D6 (decision log) a request that reuses an answered call id is not re-opened: its response is a duplicate", () => {
    const s = replay([
      ...world().log,
      req("a", ["github__create_issue"]),
      res("a", true),
      req("a", ["slack__post_message"]),
      res("a", true),
    ]);
    expect(s.enabled).toEqual(["github__create_issue"]);
    expect(s.pending).toEqual([]);
    expect(anomalies(s)).toEqual(["duplicate_response:a"]);
  });

  it("D6 (decision log) a second request with a pending call id merges: one response answers both", () => {
    const s = replay([
      ...world().log,
      req("a", ["github__create_issue"]),
      req("a", ["slack__post_message"]),
      res("a", true),
    ]);
    expect(s.enabled).toEqual(["github__create_issue", "slack__post_message"]);
    expect(s.pending).toEqual([]);
  });

  it("D6 replay never re-validates: a recorded success for a name the registry lacks still enables it", () => {
    const s = replay([
      ...world().log,
      req("a", ["github__close_issue", "github__dashboard"]),
      res("a", true),
    ]);
    expect(s.enabled).toEqual(["github__close_issue", "github__dashboard"]);
    // Recorded truth, but an app-only tool is still never shown (D3).
    expect(viewNames(s)).not.toContain("github__dashboard");
  });

  it("D7/D8 the reducer returns the same state for a Cleared that clears nothing and for a no-op Compacted", () => {
    const h = world();
    enable(h, "c1", ["github__create_issue"]);
    const cleared = evolve(h.state, { type: "Cleared", v });
    expect(evolve(cleared, { type: "Cleared", v })).toBe(cleared);
    const compact = decide(h.state, { type: "Compact" });
    if (!compact.ok) throw new Error(compact.error.message);
    expect(evolve(h.state, compact.events[0]!)).toBe(h.state);
  });
});

describe("D7 compaction", () => {
  it("D7 Compacted carries the enabled names, pending requests, answered ids and anomalies", () => {
    const h = world();
    enable(h, "c1", ["github__create_issue"]);
    enable(h, "c2", ["nope"]);
    h.state = evolve(h.state, {
      type: "EnableToolsRequested",
      v,
      callId: "c3",
      names: ["slack__post_message"],
    });
    const [event] = h.run({ type: "Compact", at: "2026-11-30T00:00:00Z" });
    if (event?.type !== "Compacted") throw new Error("expected a Compacted event");
    expect({ ...event, answered: [...event.answered].sort() }).toEqual({
      type: "Compacted",
      v,
      at: "2026-11-30T00:00:00Z",
      enabled: ["github__create_issue"],
      pending: [{ callId: "c3", names: ["slack__post_message"] }],
      answered: ["c1", "c2"],
      anomalies: [{ kind: "failed_response", callId: "c2" }],
      anomalyCount: 1,
    });
  });

  it("D7 replaying from the latest Compacted skips the conversation before it, not the registry", () => {
    const h = world();
    enable(h, "c1", ["github__create_issue"]);
    h.run({ type: "Compact" });
    h.fetch("github", ["create_issue", "list_issues", "close_issue"]);
    enable(h, "c2", ["github__close_issue"]);
    const rebuilt = replayFromLatestCompaction(h.log);
    expect(rebuilt.enabled).toEqual(["github__close_issue", "github__create_issue"]);
    expect(modelView(rebuilt)).toEqual(modelView(h.state));
    expect(listTools(rebuilt)).toEqual(listTools(h.state));
  });
});

describe("D8 clear", () => {
  it("D8 Cleared empties the enabled set and pending requests and leaves the registry as it was", () => {
    const h = world();
    enable(h, "c1", ["github__create_issue"]);
    h.state = evolve(h.state, {
      type: "EnableToolsRequested",
      v,
      callId: "c2",
      names: ["slack__post_message"],
    });
    const before = h.state;
    h.run({ type: "Clear" });
    expect(h.state.enabled).toEqual([]);
    expect(h.state.pending).toEqual([]);
    expect(h.state.extensions).toBe(before.extensions);
    expect(h.state.collisions).toBe(before.collisions);
    expect(h.state.version).toBe(before.version);
    expect(h.state.deferral).toBe(before.deferral);
    expect(modelView(h.state).deferred).toContain("github__create_issue");
    expect(checkCall(h.state, "github__create_issue")).toMatchObject({
      ok: false,
      error: { code: "TOOL_NOT_ENABLED" },
    });
  });

  it("D8 (decision log) a response to a request made before the clear is an orphan and enables nothing", () => {
    const h = world();
    h.state = evolve(h.state, {
      type: "EnableToolsRequested",
      v,
      callId: "c1",
      names: ["github__create_issue"],
    });
    h.run({ type: "Clear" });
    h.state = evolve(h.state, { type: "EnableToolsResponded", v, callId: "c1", ok: true });
    expect(h.state.enabled).toEqual([]);
    expect(anomalies(h.state)).toEqual(["response_without_request:c1"]);
  });

  it("D8 after a clear, a call id used before it may be used again", () => {
    const h = world();
    enable(h, "c1", ["github__create_issue"]);
    h.run({ type: "Clear" });
    expect(enable(h, "c1", ["slack__post_message"]).ok).toBe(true);
    expect(h.state.enabled).toEqual(["slack__post_message"]);
  });

  it("D8 diagnostics survive a clear", () => {
    const h = world();
    enable(h, "c1", []);
    h.run({ type: "Clear" });
    expect(anomalies(h.state)).toEqual(["failed_response:c1"]);
  });
});

describe("D9 calls to deferred tools", () => {
  it("D9 a deferred tool that is not enabled is refused, naming enable_tools and the exact public name", () => {
    const h = world();
    for (const asCalled of [
      "github__create_issue",
      "github.create_issue",
      "functions.github__create_issue",
    ]) {
      const r = checkCall(h.state, asCalled);
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.error.code).toBe("TOOL_NOT_ENABLED");
      expect(r.error.message).toContain(ENABLE_TOOLS_NAME);
      expect(r.error.message).toContain('"github__create_issue"');
      expect(r.error.suggestions).toEqual(["github__create_issue"]);
    }
  });

  it("D9 enabled, platform and always-load tools pass, with owner and raw name", () => {
    const h = world("lookup", ["slack__post_message"]);
    enable(h, "c1", ["github__create_issue"]);
    expect(checkCall(h.state, "github__create_issue")).toMatchObject({
      ok: true,
      extension: "github",
      rawName: "create_issue",
    });
    expect(checkCall(h.state, "developer__shell")).toMatchObject({
      ok: true,
      extension: "developer",
      rawName: "shell",
    });
    expect(checkCall(h.state, "slack__post_message")).toMatchObject({
      ok: true,
      extension: "slack",
    });
  });

  it("D9 with deferral off every visible tool may be called; app-only never", () => {
    const h = world("off");
    expect(checkCall(h.state, "github__create_issue").ok).toBe(true);
    expect(checkCall(h.state, "github__dashboard")).toMatchObject({
      ok: false,
      error: { code: "APP_ONLY_TOOL" },
    });
  });
});

describe("scenarios", () => {
  it("lifecycle (D5–D8): enable two, rebuild, compact, rebuild, clear", () => {
    const h = world();
    expect(enable(h, "call-1", ["github__create_issue", "slack__post_message"]).ok).toBe(true);
    const enabledNames = ["github__create_issue", "slack__post_message"];
    const visible = (s: State) =>
      enabledNames.every((n) => viewNames(s).includes(n) && checkCall(s, n).ok);
    expect(visible(h.state)).toBe(true);

    const rebuilt = replay(h.log);
    expect(rebuilt.enabled).toEqual(enabledNames);
    expect(visible(rebuilt)).toBe(true);

    h.run({ type: "Compact" });
    h.fetch("github", ["create_issue", "list_issues"]);
    for (const s of [replay(h.log), replayFromLatestCompaction(h.log)]) {
      expect(s.enabled).toEqual(enabledNames);
      expect(visible(s)).toBe(true);
      expect(modelView(s)).toEqual(modelView(h.state));
    }

    h.run({ type: "Clear" });
    for (const s of [h.state, replay(h.log), replayFromLatestCompaction(h.log)]) {
      expect(s.enabled).toEqual([]);
      expect(modelView(s).deferred).toEqual([
        "github__create_issue",
        "github__list_issues",
        "slack__post_message",
      ]);
      for (const n of enabledNames) {
        expect(viewNames(s)).not.toContain(n);
        expect(checkCall(s, n)).toMatchObject({ ok: false, error: { code: "TOOL_NOT_ENABLED" } });
      }
    }
  });

  it("eager override (D1, D2, D3, D9): an always-load MCP tool is eager, another stays deferred, an app-only one is nowhere", () => {
    const config = parseDeferralConfig({
      GOOSE_TOOL_DEFERRAL: "lookup",
      GOOSE_TOOL_DEFERRAL_ALWAYS_LOAD: " github__create_issue ",
    });
    if (!config.ok) throw new Error(config.error.message);
    const h = host();
    h.add("github");
    h.fetch("github", ["create_issue", "list_issues", appOnly("dashboard")]);
    h.run({ type: "ConfigureDeferral", ...config.config });

    const view = modelView(h.state);
    expect(view.tools.map((t) => t.name)).toEqual([ENABLE_TOOLS_NAME, "github__create_issue"]);
    expect(checkCall(h.state, "github__create_issue")).toMatchObject({
      ok: true,
      rawName: "create_issue",
    });

    expect(view.deferred).toEqual(["github__list_issues"]);
    expect(checkCall(h.state, "github__list_issues")).toMatchObject({
      ok: false,
      error: { code: "TOOL_NOT_ENABLED" },
    });

    expect(view.systemPrompt).toContain("github__list_issues");
    expect(view.systemPrompt).not.toContain("github__dashboard");
    expect(view.systemPrompt).not.toContain("github__create_issue");
    const r = enable(h, "c1", ["github__dashboard"]);
    expect(r.ok).toBe(false);
    expect(r.error?.invalid.map((i) => i.name)).toEqual(["github__dashboard"]);
    expect(h.state.enabled).toEqual([]);
    expect(checkCall(h.state, "github__dashboard")).toMatchObject({
      ok: false,
      error: { code: "APP_ONLY_TOOL" },
    });
  });

  it("D5 one valid and one unknown name enable neither, and the error names the unknown one", () => {
    const h = world();
    const r = enable(h, "c1", ["github__create_issue", "github__delete_repo"]);
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe("INVALID_TOOL_NAMES");
    expect(r.error?.invalid.map((i) => i.name)).toEqual(["github__delete_repo"]);
    expect(r.error?.message).toContain('"github__delete_repo"');
    expect(h.state.enabled).toEqual([]);
    expect(replay(h.log).enabled).toEqual([]);
    expect(modelView(h.state).deferred).toContain("github__create_issue");
    expect(checkCall(h.state, "github__create_issue").ok).toBe(false);
  });
});
