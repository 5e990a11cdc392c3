import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decide } from "../decide/decide.js";
import { decodeEvent } from "../events/decodeEvent.js";
import { evolve } from "../fold/evolve.js";
import { host } from "../fold/fixtures.test-helpers.js";
import { TaskStatusSchema } from "./taskEvents.js";

/** A conversation with a `research` tool and one call of it in flight, started at `at`. */
function withCall(callId = "call-1", at = "2026-12-01T10:00:00.000Z") {
  const h = host();
  h.add("everything");
  h.fetch("everything", ["research", "echo"]);
  h.run({ type: "StartCall", at, callId, name: "everything__research" });
  return h;
}

describe("C6 a task is a call with its lifecycle as events", () => {
  it("C6 TaskCreated names its call; the task is open, working, with its tool", () => {
    const h = withCall();
    const [created] = h.run({
      type: "CreateTask",
      at: "2026-12-01T10:00:00.100Z",
      callId: "call-1",
      taskId: "t-1",
      runner: "server",
      upstreamTaskId: "up-1",
      ttlMs: 300000,
      pollIntervalMs: 1000,
    });
    expect(created).toMatchObject({
      type: "TaskCreated",
      callId: "call-1",
      taskId: "t-1",
      runner: "server",
      upstreamTaskId: "up-1",
      requested: true,
    });
    expect(h.state.tasks.open).toEqual([
      expect.objectContaining({
        taskId: "t-1",
        callId: "call-1",
        status: "working",
        publicName: "everything__research",
        owner: "everything",
        createdAt: "2026-12-01T10:00:00.100Z",
      }),
    ]);
    // The call stays in flight until its task ends.
    expect(h.state.calls.inFlight.map((c) => c.callId)).toEqual(["call-1"]);
  });

  it("C6/C4 a server's task that completes finishes its call, with the duration from the call's start", () => {
    const h = withCall();
    h.run({ type: "CreateTask", callId: "call-1", taskId: "t-1", runner: "server" });
    expect(
      h.run({ type: "ChangeTaskStatus", taskId: "t-1", status: "working", message: "Gathering" }),
    ).toHaveLength(1);
    h.run({ type: "ChangeTaskStatus", taskId: "t-1", status: "input_required" });
    h.run({ type: "ChangeTaskStatus", taskId: "t-1", status: "working" });
    const ended = h.run({
      type: "ChangeTaskStatus",
      at: "2026-12-01T10:00:04.500Z",
      taskId: "t-1",
      status: "completed",
    });
    expect(ended).toEqual([
      expect.objectContaining({ type: "TaskStatusChanged", status: "completed" }),
      expect.objectContaining({
        type: "ToolCallFinished",
        callId: "call-1",
        outcome: "ok",
        durationMs: 4500,
        error: null,
      }),
    ]);
    expect(h.state.tasks.open).toEqual([]);
    expect(h.state.tasks.recent.map((t) => [t.taskId, t.status])).toEqual([["t-1", "completed"]]);
    expect(h.state.tasks.ended.completed).toBe(1);
    expect(h.state.calls.inFlight).toEqual([]);
    expect(h.state.calls.outcomes.ok).toBe(1);
  });

  it("C6 each end maps to a call outcome: failed → tool_error, cancelled, expired → timeout, lost → unknown (L3)", () => {
    const cases = [
      ["failed", "tool_error", null],
      ["cancelled", "cancelled", null],
      ["expired", "timeout", "expired"],
      ["lost", "unknown", "lost"],
    ] as const;
    for (const [status, outcome, reason] of cases) {
      const h = withCall();
      h.run({ type: "CreateTask", callId: "call-1", taskId: "t", runner: "server" });
      const events = h.run({ type: "ChangeTaskStatus", taskId: "t", status, message: "why" });
      expect(events[1]).toMatchObject({ type: "ToolCallFinished", outcome, reason, error: "why" });
    }
  });

  it("C6 a task the gateway runs does not finish its call: the call's own end does", () => {
    const h = withCall();
    h.run({ type: "CreateTask", callId: "call-1", taskId: "t-g", runner: "gateway" });
    const events = h.run({ type: "ChangeTaskStatus", taskId: "t-g", status: "completed" });
    expect(events.map((e) => e.type)).toEqual(["TaskStatusChanged"]);
    expect(h.state.calls.inFlight.map((c) => c.callId)).toEqual(["call-1"]);
  });

  it("C6 an ended task never changes again; the same status and message again records nothing", () => {
    const h = withCall();
    h.run({ type: "CreateTask", callId: "call-1", taskId: "t-1", runner: "server" });
    h.run({ type: "ChangeTaskStatus", taskId: "t-1", status: "working", message: "a" });
    expect(
      h.run({ type: "ChangeTaskStatus", taskId: "t-1", status: "working", message: "a" }),
    ).toEqual([]);
    h.run({ type: "ChangeTaskStatus", taskId: "t-1", status: "cancelled" });
    expect(h.run({ type: "ChangeTaskStatus", taskId: "t-1", status: "completed" })).toEqual([]);
    expect(h.state.tasks.recent.map((t) => t.status)).toEqual(["cancelled"]);
  });

  it("E6 an unknown task and a task id used twice are refused as values", () => {
    const h = withCall();
    const unknown = decide(h.state, { type: "ChangeTaskStatus", taskId: "nope", status: "failed" });
    expect(unknown).toMatchObject({ ok: false, error: { code: "UNKNOWN_TASK" } });
    h.run({ type: "CreateTask", callId: "call-1", taskId: "t-1", runner: "server" });
    const twice = decide(h.state, {
      type: "CreateTask",
      callId: "call-1",
      taskId: "t-1",
      runner: "gateway",
    });
    expect(twice).toMatchObject({ ok: false, error: { code: "DUPLICATE_TASK_ID" } });
    const badStatus = decide(h.state, {
      type: "ChangeTaskStatus",
      taskId: "t-1",
      status: "paused" as never,
    });
    expect(badStatus).toMatchObject({ ok: false, error: { code: "INVALID_COMMAND" } });
  });

  it("E2 a status change of a task the log never created is ignored with its reason, not thrown", () => {
    const h = withCall();
    const s = evolve(h.state, {
      type: "TaskStatusChanged",
      v: 1,
      taskId: "ghost",
      status: "completed",
      message: null,
    });
    expect(s.ignored.at(-1)).toEqual({
      type: "TaskStatusChanged",
      reason: 'no open task "ghost"',
    });
    expect(s.tasks).toBe(h.state.tasks);
  });

  it("E6 property: whatever task commands decide accepts, the events decode and fold as decided", () => {
    const status = fc.constantFrom(...TaskStatusSchema.options);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            task: fc.constantFrom("a", "b"),
            status,
            message: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
            runner: fc.constantFrom("server" as const, "gateway" as const),
            create: fc.boolean(),
          }),
          { maxLength: 20 },
        ),
        (steps) => {
          const h = withCall();
          for (const step of steps) {
            const command = step.create
              ? {
                  type: "CreateTask" as const,
                  callId: "call-1",
                  taskId: step.task,
                  runner: step.runner,
                }
              : {
                  type: "ChangeTaskStatus" as const,
                  taskId: step.task,
                  status: step.status,
                  ...(step.message === undefined ? {} : { message: step.message }),
                };
            const d = decide(h.state, command);
            if (!d.ok) continue;
            for (const e of d.events) {
              const decoded = decodeEvent(JSON.parse(JSON.stringify(e)));
              expect(decoded).toEqual({ ok: true, event: e });
              h.state = evolve(h.state, e);
            }
          }
          // A task is open or ended, never both, and an ended one left the open list.
          const open = new Set(h.state.tasks.open.map((t) => t.taskId));
          for (const t of h.state.tasks.recent) expect(open.has(t.taskId)).toBe(false);
          expect(h.state.ignoredCount).toBe(0);
        },
      ),
    );
  });
});
