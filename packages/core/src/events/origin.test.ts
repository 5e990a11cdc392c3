import { describe, expect, it } from "vitest";
import { evolve } from "../fold/evolve.js";
import { initialState } from "../fold/state.js";
import { decodeEvent } from "./decodeEvent.js";

describe("the origin marker (issue 26, E6)", () => {
  it("an event written before the marker decodes unchanged, key for key", () => {
    const old = {
      type: "ToolCallStarted",
      v: 1,
      at: "2026-01-01T00:00:00Z",
      callId: "c1",
      name: "a__b",
      publicName: "a__b",
      owner: "a",
      rawName: "b",
    };
    const decoded = decodeEvent(old);
    expect(decoded).toEqual({ ok: true, event: old });
    expect(decoded.ok && decoded.event.origin).toBeUndefined();
  });

  it("every event type may carry exact, inferred or synthetic; the hand-decoded types check it through their schema", () => {
    for (const kind of ["exact", "inferred", "synthetic"] as const) {
      const origin = { kind, source: "goose:sqlite", key: "call:c1@1", note: "n" };
      for (const raw of [
        {
          type: "ToolCallStarted",
          v: 1,
          callId: "c1",
          name: "x",
          publicName: null,
          owner: null,
          rawName: null,
          origin,
        },
        {
          type: "ToolCallFinished",
          v: 1,
          callId: "c1",
          outcome: "ok",
          durationMs: 0,
          reason: null,
          error: null,
          origin,
        },
        { type: "ToolsInvalidated", v: 1, at: "t", extension: "a", origin },
        { type: "ToolsFetched", v: 1, extension: "a", startedAtVersion: 0, tools: [], origin },
        { type: "Cleared", v: 1, origin },
        {
          type: "SessionImported",
          v: 1,
          host: "goose",
          format: "sqlite",
          sourceSession: "s",
          sourcePath: "/p",
          origin,
        },
        { type: "UsageRecorded", v: 1, inputTokens: 3, origin },
      ]) {
        const d = decodeEvent(raw);
        expect(d.ok, raw.type).toBe(true);
        expect(d.ok && d.event.origin).toEqual(origin);
      }
    }
  });

  it("a malformed origin is refused with its path, even on the hand-decoded types", () => {
    for (const origin of [
      { kind: "guessed", source: "s", key: "k" },
      { kind: "exact", source: "", key: "k" },
      "exact",
    ]) {
      const d = decodeEvent({ type: "ToolsInvalidated", v: 1, at: "t", extension: "a", origin });
      expect(d.ok).toBe(false);
      expect(!d.ok && d.error.path.startsWith("origin")).toBe(true);
    }
  });

  it("SessionImported and UsageRecorded fold to the same state (E2: readers read them from the log)", () => {
    const s = initialState();
    const imported = decodeEvent({
      type: "SessionImported",
      v: 1,
      host: "goose",
      format: "jsonl",
      sourceSession: "x",
      sourcePath: "/x",
    });
    const usage = decodeEvent({ type: "UsageRecorded", v: 1, totalTokens: 10 });
    expect(imported.ok && usage.ok).toBe(true);
    if (imported.ok && usage.ok) {
      expect(evolve(s, imported.event)).toBe(s);
      expect(evolve(s, usage.event)).toBe(s);
    }
  });
});
