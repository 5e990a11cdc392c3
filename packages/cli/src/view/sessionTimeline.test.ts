import { decodeEventOrThrow, initialState, type ToolledgerEvent } from "@toolledger/core";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { longSession } from "../../testing/longSession.js";
import { sampleLog } from "../../testing/sampleLog.js";
import { summarizeState } from "../output/summarizeState.js";
import { replaySteps } from "../replay/replaySteps.js";
import { foldEntries } from "../session/foldEntries.js";
import type { LogEntry } from "../session/logEntry.js";
import { SessionTimeline } from "./sessionTimeline.js";
import { fromViewEntry, toViewEntries } from "./viewEntries.js";

/** The page's path: entries through their embedded form, folded, described. */
function pageTimeline(entries: readonly LogEntry[]): SessionTimeline {
  const data = JSON.parse(JSON.stringify(toViewEntries(entries))) as ReturnType<
    typeof toViewEntries
  >;
  const timeline = new SessionTimeline();
  timeline.append(foldEntries(data.entries.map((v) => fromViewEntry(v, data))));
  return timeline;
}

describe("the view's timeline folds exactly what replay folds", () => {
  const { entries } = sampleLog();

  test("at every position the state is replay's state (after the JSON round trip of the page data)", () => {
    const timeline = pageTimeline(entries);
    expect(timeline.length).toBe(entries.length);
    expect(summarizeState(timeline.stateAfter(0))).toEqual(summarizeState(initialState()));
    let i = 0;
    for (const { step, state } of replaySteps(entries)) {
      i++;
      expect(timeline.rows[i - 1]!.position).toBe(step.position);
      expect(summarizeState(timeline.stateAfter(i), { includeHidden: true })).toEqual(
        summarizeState(state, { includeHidden: true }),
      );
    }
  });

  test("property: any prefix of a long session, any position: the same summary as replay", () => {
    const events = longSession(3000, 11);
    const log: LogEntry[] = events.map((event, i) => ({ position: i + 1, event }));
    const timeline = pageTimeline(log);
    const states = [...replaySteps(log)].map((s) => s.state);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: log.length }), (n) => {
        expect(summarizeState(timeline.stateAfter(n))).toEqual(summarizeState(states[n - 1]!));
        expect(timeline.countThrough(n)).toBe(n);
      }),
      { numRuns: 60 },
    );
  });

  test("tools that refetches repeat are embedded once and restored exactly", () => {
    const log: LogEntry[] = longSession(2000, 3).map((event, i) => ({ position: i + 1, event }));
    const data = toViewEntries(log);
    const fetched = log.filter((e) => e.event.type === "ToolsFetched");
    const listed = fetched.reduce((n, e) => n + (e.event as { tools: unknown[] }).tools.length, 0);
    expect(data.tools.length).toBeLessThan(listed / 3);
    expect(data.entries.map((v) => fromViewEntry(v, data))).toEqual(log);
  });
});

describe("each event's line (R9, R11, D6, C4)", () => {
  const rows = pageTimeline(sampleLog().entries).rows;
  const at = (p: number) => rows.find((r) => r.position === p)!;

  test("stale and failed fetches, failed enables and orphan responses are problems with their rules", () => {
    expect(at(12)).toMatchObject({ severity: "warn", rules: ["R11", "R9"], extensions: ["notes"] });
    expect(at(12).text).toBe(
      "stale fetch of notes ignored: started at version 4, registry at 5 (0 tool(s) listed)",
    );
    expect(at(16)).toMatchObject({ severity: "error", related: at(15).index });
    expect(at(15).followers).toEqual([at(16).index]);
    expect(at(21).text).toContain("anomaly: response without request");
    expect(at(24)).toMatchObject({ severity: "error", rules: ["R9"], extensions: ["flaky"] });
    expect(at(14).text).toBe("✓ enable_tools call-1 succeeded: enabled notes__add_note");
    expect(at(13).extensions).toEqual(["notes"]);
  });

  test("calls pair start and finish with outcome, duration and refusal rule; unknown kinds are shown, not folded", () => {
    const v = 1 as const;
    const events = [
      {
        type: "ToolCallStarted",
        v,
        callId: "c1",
        name: "notes__add_note",
        publicName: "notes__add_note",
        owner: "notes",
        rawName: "add_note",
      },
      {
        type: "ToolCallFinished",
        v,
        callId: "c1",
        outcome: "refused",
        durationMs: 0.2,
        reason: "TOOL_NOT_ENABLED",
        error: "deferred",
      },
      { type: "SomethingNewer", v, extension: "Web Search", detail: 42 },
    ] as unknown as ToolledgerEvent[];
    const timeline = new SessionTimeline();
    timeline.append(
      events.map((event, i) => ({ entry: { position: i + 1, event }, state: initialState() })),
    );
    const [start, end, other] = timeline.rows;
    expect(end).toMatchObject({
      severity: "warn",
      rules: ["C4", "D9"],
      related: 0,
      extensions: ["notes"],
      text: "✗ notes__add_note refused in 0 ms (TOOL_NOT_ENABLED): deferred",
    });
    expect(start!.followers).toEqual([1]);
    expect(other).toMatchObject({ type: "SomethingNewer", extensions: ["websearch"], rules: [] });
    expect(other!.text).toBe('{"extension":"Web Search","detail":42}');
  });

  test("C6 a call's task: created (linked to its call), each status with its rule, the end's severity", () => {
    const v = 1 as const;
    const events = [
      {
        type: "ToolCallStarted",
        v,
        callId: "c1",
        name: "everything__simulate-research-query",
        publicName: "everything__simulate-research-query",
        owner: "everything",
        rawName: "simulate-research-query",
      },
      {
        type: "TaskCreated",
        v,
        callId: "c1",
        taskId: "81033134-4bc0-44f9-9ab4-460171356a32",
        runner: "server",
        upstreamTaskId: "u1",
        ttlMs: 300000,
        pollIntervalMs: 1000,
        requested: true,
      },
      {
        type: "TaskStatusChanged",
        v,
        taskId: "81033134-4bc0-44f9-9ab4-460171356a32",
        status: "input_required",
        message: "Which python?",
      },
      {
        type: "TaskStatusChanged",
        v,
        taskId: "81033134-4bc0-44f9-9ab4-460171356a32",
        status: "cancelled",
        message: null,
      },
    ] as unknown as ToolledgerEvent[];
    const timeline = new SessionTimeline();
    timeline.append(
      events.map((event, i) => ({ entry: { position: i + 1, event }, state: initialState() })),
    );
    const [, created, asked, ended] = timeline.rows;
    expect(created).toMatchObject({
      rules: ["C6", "G4"],
      related: 0,
      extensions: ["everything"],
      text: "◷ everything__simulate-research-query runs as task 81033134, by its server",
    });
    expect(asked).toMatchObject({
      severity: "info",
      rules: ["C6"],
      text: "task 81033134 input required: Which python?",
    });
    expect(ended).toMatchObject({ severity: "warn", text: "task 81033134 cancelled" });
  });

  test("kinds from the gateway and core work in flight: prompt and resource lists (G1), partial fetches and wire names (R9, R14)", () => {
    const v = 1 as const;
    const events = [
      { type: "ExtensionAdded", v, name: "notes", kind: "stdio", configFingerprint: "x" },
      { type: "PromptsInvalidated", v, extension: "notes" },
      {
        type: "PromptsFetched",
        v,
        extension: "notes",
        startedAtVersion: 1,
        prompts: [{ name: "p" }],
      },
      { type: "PromptsFetched", v, extension: "notes", startedAtVersion: 0, prompts: [] },
      {
        type: "ResourcesFetched",
        v,
        extension: "notes",
        startedAtVersion: 0,
        resources: [],
        error: "connection closed",
      },
    ].map((e) => decodeEventOrThrow(e));
    const rows = pageTimeline(events.map((event, i) => ({ position: i + 1, event }))).rows;
    expect(rows.slice(1).map((r) => [r.text, r.severity, r.rules])).toEqual([
      ["notes sent prompts/list_changed", "info", ["G1"]],
      ["notes listed 1 prompt(s)", "ok", ["G1"]],
      [
        "stale prompt list of notes ignored (started at its list version 0): no change",
        "warn",
        ["G1", "R11"],
      ],
      ["fetching notes's resources failed: connection closed", "error", ["G1"]],
    ]);

    const { entries } = sampleLog();
    const log = entries.map((e) =>
      e.position === 7
        ? {
            ...e,
            event: {
              ...e.event,
              complete: false,
              reason: "page 2 failed",
              wireNames: [{ rawName: "add_note", wireName: "notes__add_note" }],
            } as unknown as ToolledgerEvent,
          }
        : e,
    );
    const row = pageTimeline(log).rows[6]!;
    expect(row.text).toContain("partial: page 2 failed");
    expect(row.text).toContain("1 given a wire name model APIs accept");
    expect(row.severity).toBe("warn");
    expect(row.rules).toContain("R14");
  });
});
