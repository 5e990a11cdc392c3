// Issue 11: the core as a host that embeds it meets it, driven only through the public API
// (index.ts), one describe per defect a host would hit.
import { describe, expect, it } from "vitest";
import {
  type Command,
  checkCall,
  decide,
  decodeEvent,
  diagnostics,
  ENABLE_TOOLS_NAME,
  evolve,
  getExtension,
  initialState,
  listTools,
  type McpTool,
  modelView,
  replay,
  resolveTool,
  type State,
  staleExtensions,
  type ToolledgerEvent,
} from "./index.js";

const tool = (name: string): McpTool => ({ name, inputSchema: { type: "object" } });

/** A host: decide, fold, keep the log; a refused command fails the test with its message. */
function embedder() {
  const h = {
    state: initialState(),
    log: [] as ToolledgerEvent[],
    run(command: Command): ToolledgerEvent[] {
      const decision = decide(h.state, command);
      if (!decision.ok) throw new Error(`${command.type} refused: ${decision.error.message}`);
      for (const event of decision.events) {
        h.state = evolve(h.state, event);
        h.log.push(event);
      }
      return decision.events;
    },
    add(name: string, extra: Partial<Extract<Command, { type: "AddExtension" }>> = {}) {
      h.run({
        type: "AddExtension",
        name,
        kind: "stdio",
        configFingerprint: `fp:${name}`,
        ...extra,
      });
    },
    fetch(extension: string, names: string[]) {
      h.run({
        type: "RecordFetch",
        extension,
        startedAtVersion: h.state.version,
        tools: names.map(tool),
      });
    },
  };
  return h;
}

/** decide called as a JavaScript host calls it: with whatever it was given. */
const decideUntyped = (state: State, command: unknown) => decide(state, command as Command);

describe("issue 11.1 R10: a hidden extension never takes a visible tool away", () => {
  function shadowed() {
    const h = embedder();
    h.add("_sys", { exposeUnprefixed: true });
    h.add("Developer", { kind: "platform", exposeUnprefixed: true });
    h.fetch("_sys", ["shell"]);
    h.fetch("Developer", ["shell"]);
    return h;
  }

  it("R10 the visible extension's tool wins the name although the hidden key sorts first", () => {
    const { state } = shadowed();
    expect(listTools(state).map((t) => `${t.owner}:${t.publicName}`)).toEqual(["developer:shell"]);
    expect(modelView(state).tools.map((t) => t.name)).toEqual(["shell"]);
    expect(resolveTool(state, "shell")).toMatchObject({ ok: true, extension: "developer" });
    expect(resolveTool(state, "shell", { includeHidden: true })).toMatchObject({
      ok: true,
      extension: "developer",
    });
  });

  it("R10 the collision names the hidden extension only with includeHidden", () => {
    const { state } = shadowed();
    expect(diagnostics(state).filter((d) => d.kind === "collision")).toEqual([]);
    expect(JSON.stringify(diagnostics(state))).not.toContain("_sys");
    expect(diagnostics(state, { includeHidden: true })).toContainEqual(
      expect.objectContaining({ kind: "collision", winner: "developer", losers: ["_sys"] }),
    );
  });

  it("R10 with the order of extension keys reversed (hidden by flag) the visible one still wins", () => {
    const h = embedder();
    h.add("zz", { exposeUnprefixed: true });
    h.add("aa", { exposeUnprefixed: true, hidden: true });
    h.fetch("aa", ["shell"]);
    h.fetch("zz", ["shell"]);
    expect(resolveTool(h.state, "shell")).toMatchObject({ ok: true, extension: "zz" });
    expect(diagnostics(h.state, { includeHidden: true })).toContainEqual(
      expect.objectContaining({ kind: "collision", winner: "zz", losers: ["aa"] }),
    );
  });
});

describe("issue 11.2 E6: decide is a boundary", () => {
  const state = () => {
    const h = embedder();
    h.add("github");
    h.fetch("github", ["create_issue"]);
    return h.state;
  };

  it("E6 an unknown deferral mode is refused with a typed error naming the allowed modes", () => {
    const r = decideUntyped(state(), { type: "ConfigureDeferral", mode: "serach" });
    expect(r).toMatchObject({ ok: false, error: { code: "UNKNOWN_DEFERRAL_MODE" } });
    if (!r.ok) expect(r.error.message).toMatch(/"serach".*off.*lookup.*search.*auto/);
  });

  it.each([
    [
      "AddExtension with an empty kind",
      { type: "AddExtension", name: "x", kind: "", configFingerprint: "f" },
      "kind",
    ],
    [
      "RecordFetch at version -1",
      { type: "RecordFetch", extension: "github", startedAtVersion: -1, tools: [] },
      "startedAtVersion",
    ],
    ["RemoveExtension without extension", { type: "RemoveExtension" }, "extension"],
    [
      "RecordFetch without extension",
      { type: "RecordFetch", startedAtVersion: 1, tools: [] },
      "extension",
    ],
    [
      "EnableTools with a number for a name",
      { type: "EnableTools", callId: "c", names: [42] },
      "names.0",
    ],
    ["EnableTools without names", { type: "EnableTools", callId: "c" }, "names"],
    [
      "a tool that is not JSON",
      {
        type: "RecordFetch",
        extension: "github",
        startedAtVersion: 1,
        tools: [{ name: "t", inputSchema: { type: "object", x: () => 1 } }],
      },
      "tools.0.inputSchema.x",
    ],
  ])(
    "E6 %s is refused as INVALID_COMMAND naming the field, without throwing",
    (_, command, path) => {
      const r = decideUntyped(state(), command);
      expect(r).toMatchObject({ ok: false, error: { code: "INVALID_COMMAND", path } });
    },
  );

  it.each([[null], [42], ["Clear"], [[]], [undefined], [{}], [{ type: "Explode" }]])(
    "E6 %j is refused, not thrown",
    (command: unknown) => {
      const r = decideUntyped(state(), command);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(["INVALID_COMMAND", "UNKNOWN_COMMAND"]).toContain(r.error.code);
    },
  );

  it("E6 what a valid command emits decodes and folds", () => {
    const s = state();
    const r = decide(s, { type: "ConfigureDeferral", mode: "lookup", alwaysLoad: ["x"] });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    for (const e of r.events)
      expect(decodeEvent(JSON.parse(JSON.stringify(e)))).toEqual({ ok: true, event: e });
    expect(modelView(replay(r.events, s)).tools.map((t) => t.name)).toEqual([ENABLE_TOOLS_NAME]);
  });
});

describe("issue 11.3 D5: request now, approve or deny later", () => {
  function deferred() {
    const h = embedder();
    h.run({ type: "ConfigureDeferral", mode: "lookup" });
    h.add("github");
    h.fetch("github", ["create_issue", "list_repos"]);
    return h;
  }

  it("D5 a request records only the request; approval validates then and enables", () => {
    const h = deferred();
    const requested = h.run({
      type: "RequestEnableTools",
      callId: "c1",
      names: ["github__list_repos"],
    });
    expect(requested.map((e) => e.type)).toEqual(["EnableToolsRequested"]);
    expect(h.state.pending).toEqual([{ callId: "c1", names: ["github__list_repos"] }]);
    expect(modelView(h.state).deferred).toContain("github__list_repos");
    const approved = h.run({ type: "ApproveEnableTools", callId: "c1" });
    expect(approved).toEqual([{ type: "EnableToolsResponded", v: 1, callId: "c1", ok: true }]);
    expect(h.state.enabled).toEqual(["github__list_repos"]);
    expect(h.state.pending).toEqual([]);
  });

  it("D5 approval is validated against the registry of that moment", () => {
    const h = deferred();
    h.run({ type: "RequestEnableTools", callId: "c1", names: ["github__list_repos"] });
    h.fetch("github", ["create_issue"]);
    const [response] = h.run({ type: "ApproveEnableTools", callId: "c1" });
    expect(response).toMatchObject({ ok: false, error: { code: "INVALID_TOOL_NAMES" } });
    expect(h.state.enabled).toEqual([]);
  });

  it("D5 a denial is a failed response carrying the host's reason", () => {
    const h = deferred();
    h.run({ type: "RequestEnableTools", callId: "c1", names: ["github__list_repos"] });
    const [response] = h.run({
      type: "DenyEnableTools",
      callId: "c1",
      reason: "the user declined enabling github__list_repos",
    });
    expect(response).toMatchObject({
      type: "EnableToolsResponded",
      ok: false,
      error: { code: "DENIED", message: "the user declined enabling github__list_repos" },
    });
    expect(h.state.enabled).toEqual([]);
    expect(h.state.pending).toEqual([]);
  });

  it("D5 approving or denying a call id with no pending request is refused before any event", () => {
    const h = deferred();
    for (const command of [
      { type: "ApproveEnableTools", callId: "nope" },
      { type: "DenyEnableTools", callId: "nope", reason: "no" },
    ] as const) {
      expect(decide(h.state, command)).toMatchObject({
        ok: false,
        error: { code: "UNKNOWN_CALL_ID" },
      });
    }
    h.run({ type: "RequestEnableTools", callId: "c1", names: ["github__list_repos"] });
    expect(decide(h.state, { type: "RequestEnableTools", callId: "c1", names: [] })).toMatchObject({
      ok: false,
      error: { code: "DUPLICATE_CALL_ID" },
    });
  });

  it("D5 the one-step form still records request and response together", () => {
    const h = deferred();
    const events = h.run({ type: "EnableTools", callId: "c1", names: ["github__list_repos"] });
    expect(events.map((e) => e.type)).toEqual(["EnableToolsRequested", "EnableToolsResponded"]);
    expect(h.state.enabled).toEqual(["github__list_repos"]);
  });
});

describe("issue 11.4 R11: the host's own invalidate", () => {
  it("R11 InvalidateTools without an extension bumps the version with no extension loaded", () => {
    const h = embedder();
    const events = h.run({ type: "InvalidateTools" });
    expect(events).toEqual([{ type: "ToolsInvalidated", v: 1 }]);
    expect(h.state.version).toBe(1);
    expect(decodeEvent({ type: "ToolsInvalidated", v: 1 })).toEqual({ ok: true, event: events[0] });
  });

  it("R11 it makes every extension stale, as goose's invalidate_tools_cache_and_bump_version does", () => {
    const h = embedder();
    h.add("a");
    h.add("b");
    h.fetch("a", ["x"]);
    h.fetch("b", ["y"]);
    expect(staleExtensions(h.state)).toEqual([]);
    h.run({ type: "InvalidateTools" });
    expect(staleExtensions(h.state)).toEqual(["a", "b"]);
    expect(listTools(h.state).map((t) => t.publicName)).toEqual(["a__x", "b__y"]);
  });
});

describe("issue 11.5 R9: a partial listing says so", () => {
  it("R9 a fetch recorded with complete: false registers what was gathered and reports partial_fetch", () => {
    const h = embedder();
    h.add("paged");
    h.run({
      type: "RecordFetch",
      extension: "paged",
      startedAtVersion: h.state.version,
      tools: [tool("a"), tool("b")],
      complete: false,
      reason: "tools/list page 2 failed: request timed out after 30000 ms",
    });
    expect(listTools(h.state).map((t) => t.publicName)).toEqual(["paged__a", "paged__b"]);
    expect(getExtension(h.state, "paged")?.fetch).toMatchObject({ status: "partial" });
    expect(diagnostics(h.state)).toContainEqual(
      expect.objectContaining({
        kind: "partial_fetch",
        extension: "paged",
        reason: "tools/list page 2 failed: request timed out after 30000 ms",
      }),
    );
    expect(decodeEvent(JSON.parse(JSON.stringify(h.log.at(-1))))).toEqual({
      ok: true,
      event: h.log.at(-1),
    });
    h.fetch("paged", ["a", "b", "c"]);
    expect(diagnostics(h.state).filter((d) => d.kind === "partial_fetch")).toEqual([]);
    expect(getExtension(h.state, "paged")?.fetch).toMatchObject({ status: "ok" });
  });

  it("R9 a ToolsFetched written by an earlier release (no complete field) decodes and folds as complete", () => {
    const old = [
      { type: "ExtensionAdded", v: 1, name: "x", kind: "stdio", configFingerprint: "f" },
      { type: "ToolsFetched", v: 1, extension: "x", startedAtVersion: 1, tools: [tool("t")] },
    ].map((e) => {
      const r = decodeEvent(e);
      if (!r.ok) throw new Error(r.error.message);
      return r.event;
    });
    const state = replay(old);
    expect(getExtension(state, "x")?.fetch).toMatchObject({ status: "ok" });
    expect(diagnostics(state)).toEqual([]);
  });

  it("R9 a partial fetch without a reason is refused by the decider", () => {
    const h = embedder();
    h.add("paged");
    const r = decide(h.state, {
      type: "RecordFetch",
      extension: "paged",
      startedAtVersion: h.state.version,
      tools: [],
      complete: false,
    });
    expect(r).toMatchObject({ ok: false, error: { code: "INVALID_COMMAND", path: "reason" } });
  });
});

describe("issue 11.6 D4/D5: checkCall knows the enable_tools tool it offers", () => {
  it("D5 in lookup mode checkCall(enable_tools) resolves to the built-in, as the model view offers it", () => {
    const h = embedder();
    h.run({ type: "ConfigureDeferral", mode: "lookup" });
    h.add("github");
    h.fetch("github", ["create_issue"]);
    expect(modelView(h.state).tools.map((t) => t.name)).toContain(ENABLE_TOOLS_NAME);
    expect(checkCall(h.state, ENABLE_TOOLS_NAME)).toMatchObject({
      ok: true,
      builtin: true,
      publicName: ENABLE_TOOLS_NAME,
      rawName: ENABLE_TOOLS_NAME,
    });
    expect(checkCall(h.state, `functions.${ENABLE_TOOLS_NAME}`)).toMatchObject({
      ok: true,
      builtin: true,
    });
  });

  it("D4 with deferral off there is no enable_tools to call", () => {
    const h = embedder();
    expect(checkCall(h.state, ENABLE_TOOLS_NAME)).toMatchObject({
      ok: false,
      error: { code: "UNKNOWN_TOOL" },
    });
  });
});

describe("R14 names every model API accepts", () => {
  const LONG_KEY = "companyinternaleverythingserverforintegrationtesting";

  it("R14 a 75-character public name from an ordinary config is served as a fitting wire name, recorded in the log", () => {
    const h = embedder();
    h.add(LONG_KEY);
    const [fetched] = h.run({
      type: "RecordFetch",
      extension: LONG_KEY,
      startedAtVersion: h.state.version,
      tools: [tool("get-annotated-message"), tool("echo")],
    });
    const [echo, long] = listTools(h.state);
    expect(long!.publicName).toBe(`${LONG_KEY}__get-annotated-message`);
    expect(long!.publicName.length).toBe(75);
    expect(long!.wireName).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(long!.wireName).toMatch(/__get-annotated-message_[0-9a-z]{8}$/);
    // A name that fits is unchanged.
    expect(echo!.wireName).toBe(`${LONG_KEY}__echo`);
    expect(fetched).toMatchObject({
      wireNames: [{ rawName: "get-annotated-message", wireName: long!.wireName }],
    });
    expect(modelView(h.state).tools.map((t) => t.name)).toEqual(
      [long!.wireName, echo!.wireName].sort(),
    );
    for (const name of [long!.wireName, long!.publicName]) {
      expect(resolveTool(h.state, name)).toMatchObject({
        ok: true,
        publicName: long!.publicName,
        wireName: long!.wireName,
        rawName: "get-annotated-message",
      });
    }
  });

  it("R14 names with '.' or non-ASCII letters from an unprefixed server get wire names", () => {
    const h = embedder();
    h.add("loose", { exposeUnprefixed: true });
    h.fetch("loose", ["files.read", "café", "plain"]);
    const served = modelView(h.state).tools.map((t) => t.name);
    expect(served).toHaveLength(3);
    expect(served).toContain("plain");
    for (const name of served) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(served.find((n) => n.startsWith("files_read_"))).toBeDefined();
    expect(served.find((n) => n.startsWith("caf__"))).toBeDefined();
  });

  it("R14 with an outer-prefix budget every served name leaves room for the host's prefix", () => {
    const h = embedder();
    h.add("github");
    h.run({
      type: "RecordFetch",
      extension: "github",
      startedAtVersion: h.state.version,
      tools: [tool("create_issue"), tool("search_code_across_every_repository_you_can_see")],
      outerPrefixBudget: "mcp__toolledger__".length,
    });
    const [create, search] = listTools(h.state);
    expect(create!.wireName).toBe("github__create_issue");
    expect(search!.publicName.length).toBe(55);
    expect(search!.wireName.length).toBeLessThanOrEqual(64 - 17);
    expect(`mcp__toolledger__${search!.wireName}`).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it("R14 the recorded wire name is what replay serves, whatever the algorithm would pick now", () => {
    const events = [
      { type: "ExtensionAdded", v: 1, name: "x", kind: "stdio", configFingerprint: "f" },
      {
        type: "ToolsFetched",
        v: 1,
        extension: "x",
        startedAtVersion: 1,
        tools: [tool("a.b")],
        wireNames: [{ rawName: "a.b", wireName: "x__a_b_custom" }],
      },
    ].map((e) => {
      const r = decodeEvent(e);
      if (!r.ok) throw new Error(r.error.message);
      return r.event;
    });
    const state = replay(events);
    expect(listTools(state).map((t) => t.wireName)).toEqual(["x__a_b_custom"]);
    expect(resolveTool(state, "x__a_b_custom")).toMatchObject({ ok: true, publicName: "x__a.b" });
  });

  it("R14/D5/D9 the model enables and calls a tool by the wire name it was shown", () => {
    const h = embedder();
    h.run({ type: "ConfigureDeferral", mode: "lookup" });
    h.add("loose", { exposeUnprefixed: true });
    h.fetch("loose", ["files.read"]);
    const [wire] = modelView(h.state).deferred;
    expect(wire).toMatch(/^files_read_[0-9a-z]{8}$/);
    expect(modelView(h.state).systemPrompt).toContain(`- ${wire}`);
    const refused = checkCall(h.state, wire!);
    expect(refused).toMatchObject({ ok: false, error: { code: "TOOL_NOT_ENABLED" } });
    if (!refused.ok) expect(refused.error.message).toContain(JSON.stringify(wire));
    const [, response] = h.run({ type: "EnableTools", callId: "c1", names: [wire!] });
    expect(response).toMatchObject({ ok: true });
    expect(modelView(h.state).tools.map((t) => t.name)).toContain(wire);
    expect(checkCall(h.state, wire!)).toMatchObject({
      ok: true,
      publicName: "files.read",
      rawName: "files.read",
    });
  });
});
