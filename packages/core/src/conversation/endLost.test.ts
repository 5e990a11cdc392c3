import { describe, expect, it } from "vitest";
import { decide } from "../decide/decide.js";
import type { ToolledgerEvent } from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { initialState, type State } from "../fold/state.js";

// L3: the end of a conversation whose gateway is gone, decided from its state alone.

const at = (s: string) => `2026-12-03T09:00:${s}.000Z`;

function run(state: State, command: Parameters<typeof decide>[1]): [State, ToolledgerEvent[]] {
  const d = decide(state, command);
  if (!d.ok) throw new Error(d.error.message);
  return [d.events.reduce(evolve, state), d.events];
}

function conversationWithWork(): State {
  let s = initialState();
  [s] = run(s, { type: "StartConversation", registryStream: "host-1", at: at("00") });
  [s] = run(s, { type: "AddExtension", name: "w", kind: "stdio", configFingerprint: "f" });
  [s] = run(s, {
    type: "RecordFetch",
    extension: "w",
    startedAtVersion: s.version,
    tools: [{ name: "witness", inputSchema: { type: "object" } }],
  });
  [s] = run(s, { type: "StartCall", callId: "done", name: "w__witness", at: at("01") });
  [s] = run(s, { type: "FinishCall", callId: "done", outcome: "ok", durationMs: 1, at: at("01") });
  [s] = run(s, { type: "StartCall", callId: "running", name: "w__witness", at: at("02") });
  [s] = run(s, { type: "StartCall", callId: "tasked", name: "w__witness", at: at("03") });
  [s] = run(s, {
    type: "CreateTask",
    callId: "tasked",
    taskId: "t1",
    runner: "server",
    upstreamTaskId: "u1",
    at: at("03"),
  });
  return s;
}

describe("L3 EndLostConversation", () => {
  it("ends open tasks lost, unfinished calls unknown, then closes as lost with lastSeen", () => {
    const [after, events] = run(conversationWithWork(), {
      type: "EndLostConversation",
      lastSeen: at("10"),
      gone: "the lease of gateway host-1 lapsed",
      at: at("30"),
    });
    expect(events.map((e) => [e.type, "callId" in e ? e.callId : null])).toEqual([
      ["TaskStatusChanged", null],
      ["ToolCallFinished", "tasked"],
      ["ToolCallFinished", "running"],
      ["ConversationClosed", null],
    ]);
    expect(events[1]).toMatchObject({ outcome: "unknown", reason: "lost" });
    expect(events[2]).toMatchObject({ outcome: "unknown", reason: "LOST", durationMs: 8000 });
    expect(events[3]).toMatchObject({ reason: "lost", lastSeen: at("10") });
    expect(after.conversation).toMatchObject({
      status: "closed",
      closedReason: "lost",
      lastSeen: at("10"),
    });
    expect(after.calls.inFlight).toEqual([]);
    expect(after.calls.outcomes.unknown).toBe(2);
  });

  it("changes nothing for a closed conversation, and refuses a stream with no conversation", () => {
    let [s] = run(conversationWithWork(), { type: "CloseConversation", reason: "client left" });
    const again = decide(s, { type: "EndLostConversation", lastSeen: at("10"), gone: "x" });
    expect(again).toMatchObject({ ok: true, events: [] });
    s = initialState();
    expect(decide(s, { type: "EndLostConversation", lastSeen: at("10"), gone: "x" })).toMatchObject(
      {
        ok: false,
      },
    );
  });
});
