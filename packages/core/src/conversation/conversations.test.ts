import { describe, expect, it } from "vitest";
import { decide } from "../decide/decide.js";
import { modelView } from "../deferral/modelView.js";
import type { ToolledgerEvent } from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { host, tool } from "../fold/fixtures.test-helpers.js";
import { foldConversation } from "../fold/foldConversation.js";
import { initialState, withRegistry } from "../fold/state.js";
import type { StoredEvent } from "../store/eventStore.js";

function stored(streamId: string, events: ToolledgerEvent[], from: number): StoredEvent[] {
  return events.map((event, i) => ({
    streamId,
    streamPosition: i + 1,
    globalPosition: from + i,
    eventId: `${streamId}-${i}`,
    event,
    metadata: {},
    recordedAt: "2026-11-30T00:00:00.000Z",
  }));
}

describe("C4 calls are events, refusals carry their reason", () => {
  const h = host();
  h.add("github");
  h.add("_vault");
  h.fetch("github", ["create_issue", tool("panel", { _meta: { ui: { visibility: ["app"] } } })]);
  h.fetch("_vault", ["read"]);
  h.run({ type: "ConfigureDeferral", mode: "lookup" });

  const refusal = (name: string) => {
    const d = decide(h.state, { type: "StartCall", callId: `call-${name}`, name });
    if (!d.ok) throw new Error(d.error.message);
    return d.events;
  };

  it("D9: a deferred tool that is not enabled is refused as TOOL_NOT_ENABLED with the instruction", () => {
    const [started, finished] = refusal("github__create_issue");
    expect(started).toMatchObject({
      type: "ToolCallStarted",
      publicName: "github__create_issue",
      owner: "github",
      rawName: "create_issue",
    });
    expect(finished).toMatchObject({
      type: "ToolCallFinished",
      outcome: "refused",
      reason: "TOOL_NOT_ENABLED",
      durationMs: 0,
    });
    expect((finished as { error: string }).error).toContain("enable_tools");
  });

  it("R13: an unknown name is refused as UNKNOWN_TOOL with close names; R8: a hidden one is logged as HIDDEN_TOOL but reads as unknown", () => {
    const [, unknown] = refusal("github__create_isue");
    expect(unknown).toMatchObject({ outcome: "refused", reason: "UNKNOWN_TOOL" });
    expect((unknown as { error: string }).error).toContain("github__create_issue");
    const [, hidden] = refusal("_vault__read");
    expect(hidden).toMatchObject({ outcome: "refused", reason: "HIDDEN_TOOL" });
    expect((hidden as { error: string }).error).not.toContain("hidden");
  });

  it("C4: a refused call's decision carries the refusal as the model is told it (code, message, close names), the finish its reason", () => {
    const unknown = decide(h.state, {
      type: "StartCall",
      callId: "r1",
      name: "github__create_isue",
    });
    expect(unknown).toMatchObject({
      ok: true,
      refusal: {
        code: "UNKNOWN_TOOL",
        name: "github__create_isue",
        suggestions: expect.arrayContaining(["github__create_issue"]),
      },
    });
    if (!unknown.ok) throw new Error(unknown.error.message);
    expect(unknown.events[1]).toMatchObject({ error: unknown.refusal?.message });
    // R8: a hidden tool is recorded as HIDDEN_TOOL; the model is told it is unknown.
    const hidden = decide(h.state, { type: "StartCall", callId: "r2", name: "_vault__read" });
    expect(hidden).toMatchObject({ refusal: { code: "UNKNOWN_TOOL" } });
    expect(hidden.ok && hidden.events[1]).toMatchObject({ reason: "HIDDEN_TOOL" });
    const allowed = decide(h.state, { type: "StartCall", callId: "r3", name: "enable_tools" });
    expect(allowed.ok && "refusal" in allowed).toBe(false);
  });

  it("D3: an app-only tool is refused as APP_ONLY_TOOL", () => {
    const [, finished] = refusal("github__panel");
    expect(finished).toMatchObject({ outcome: "refused", reason: "APP_ONLY_TOOL" });
  });

  it("enable_tools in lookup mode is a call of the built-in tool, never refused", () => {
    const events = refusal("enable_tools");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "ToolCallStarted",
      publicName: "enable_tools",
      owner: null,
    });
  });

  it("a finished call leaves the in-flight list and is counted per tool", () => {
    let s = h.state;
    const apply = (command: Parameters<typeof decide>[1]) => {
      const d = decide(s, command);
      if (!d.ok) throw new Error(d.error.message);
      for (const e of d.events) s = evolve(s, e);
    };
    apply({ type: "EnableTools", callId: "e1", names: ["github__create_issue"] });
    apply({ type: "StartCall", callId: "x", name: "github__create_issue" });
    expect(s.calls.inFlight.map((c) => c.callId)).toEqual(["x"]);
    apply({
      type: "FinishCall",
      callId: "x",
      outcome: "tool_error",
      durationMs: 12,
      error: "boom",
    });
    expect(s.calls.inFlight).toEqual([]);
    expect(s.calls.recent.at(-1)).toMatchObject({
      callId: "x",
      publicName: "github__create_issue",
      outcome: "tool_error",
      durationMs: 12,
    });
    expect(s.calls.outcomes.tool_error).toBe(1);
  });
});

describe("C3/C5 conversation lifecycle", () => {
  it("records the client at the start, resumes and closes; a second start is refused", () => {
    let s = initialState();
    const run = (c: Parameters<typeof decide>[1]) => {
      const d = decide(s, c);
      if (!d.ok) return d.error.code;
      for (const e of d.events) s = evolve(s, e);
      return d.events.length;
    };
    run({
      type: "StartConversation",
      registryStream: "host-a",
      client: { name: "claude-ai", version: "0.1.0" },
      protocolVersion: "2025-06-18",
      transport: "stdio",
      at: "2026-11-30T10:00:00.000Z",
    });
    expect(s.conversation).toMatchObject({
      registryStream: "host-a",
      client: { name: "claude-ai", version: "0.1.0" },
      transport: "stdio",
      status: "open",
      startedAt: "2026-11-30T10:00:00.000Z",
    });
    expect(run({ type: "StartConversation", registryStream: "host-a" })).toBe(
      "CONVERSATION_EXISTS",
    );
    expect(run({ type: "CloseConversation", reason: "client disconnected" })).toBe(1);
    expect(s.conversation).toMatchObject({ status: "closed", closedReason: "client disconnected" });
    expect(run({ type: "CloseConversation", reason: "again" })).toBe(0);
    expect(run({ type: "ResumeConversation", registryStream: "host-b" })).toBe(1);
    expect(s.conversation).toMatchObject({
      status: "open",
      resumes: 1,
      registryStream: "host-b",
      client: { name: "claude-ai", version: "0.1.0" },
      startedAt: "2026-11-30T10:00:00.000Z",
    });
  });

  it("a conversation resumed on another host's registry stream sees that registry from the resume on", () => {
    const a = host();
    a.add("github");
    a.fetch("github", ["create_issue"]);
    const b = host();
    b.add("slack");
    b.fetch("slack", ["post"]);
    const registryA = stored("host-a", a.log, 1);
    const registryB = stored("host-b", b.log, 100);
    const conversation = stored(
      "conv-1",
      [
        {
          type: "ConversationStarted",
          v: 1,
          registryStream: "host-a",
          client: null,
          protocolVersion: null,
          transport: null,
          hostname: null,
        },
        { type: "ConversationClosed", v: 1, reason: "host stopped" },
        {
          type: "ConversationResumed",
          v: 1,
          registryStream: "host-b",
          client: null,
          protocolVersion: null,
          transport: null,
          hostname: null,
        },
      ],
      50,
    );
    conversation[2]!.globalPosition = 200;
    const steps = [
      ...foldConversation(
        conversation,
        new Map([
          ["host-a", registryA],
          ["host-b", registryB],
        ]),
      ),
    ];
    const atClose = steps.find((s) => s.stored.event.type === "ConversationClosed")!;
    expect(modelView(atClose.state).tools.map((t) => t.name)).toEqual(["github__create_issue"]);
    const last = steps.at(-1)!;
    expect(last.stored.event.type).toBe("ConversationResumed");
    expect(modelView(last.state).tools.map((t) => t.name)).toEqual(["slack__post"]);
    // Registry B's history before the resume is folded as catch-up steps right before the resume.
    const shown = steps.filter((s) => !s.catchUp).map((s) => s.stored.globalPosition);
    expect(shown).toEqual([...shown].sort((x, y) => x - y));
    expect(steps.filter((s) => s.catchUp).map((s) => s.stored.streamId)).toEqual(
      registryB.map(() => "host-b"),
    );
  });

  it("withRegistry takes the registry part from the host and the conversation part from the conversation", () => {
    const reg = host();
    reg.add("github");
    reg.fetch("github", ["create_issue"]);
    let conv = initialState();
    for (const e of [
      { type: "DeferralConfigured", v: 1, mode: "lookup", alwaysLoad: [] },
    ] as ToolledgerEvent[])
      conv = evolve(conv, e);
    const composed = withRegistry(conv, reg.state);
    expect(composed.version).toBe(reg.state.version);
    expect(composed.deferral.mode).toBe("lookup");
    expect(modelView(composed).deferred).toEqual(["github__create_issue"]);
  });
});
