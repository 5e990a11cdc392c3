import { describe, expect, test } from "vitest";
import { sampleLog } from "../../testing/sampleLog.js";
import { explainTool } from "./explainTool.js";

const { entries } = sampleLog();
const explain = (name: string) => explainTool(entries, name);

describe("explainTool: why a tool is what it is, citing event positions", () => {
  test("D2: always-load makes a tool eager, citing the DeferralConfigured event", () => {
    const e = explain("notes__list_notes");
    expect(e.status).toBe("eager");
    expect(e.reasons).toContainEqual(expect.objectContaining({ rule: "D2", positions: [1] }));
    expect(e.reasons).toContainEqual(expect.objectContaining({ rule: "R1/R3", positions: [2, 7] }));
  });

  test("D6: enabled by a paired successful response, citing request and response", () => {
    const e = explain("notes__search_notes");
    expect(e.status).toBe("enabled");
    expect(e.reasons).toContainEqual(expect.objectContaining({ rule: "D6", positions: [19, 20] }));
    // The earlier failed request that named it is part of its history (D5).
    expect(e.reasons).toContainEqual(expect.objectContaining({ rule: "D5", positions: [15, 16] }));
  });

  test("D4/D8: deferred again after a clear, citing the Cleared event", () => {
    const e = explain("notes__add_note");
    expect(e.status).toBe("deferred");
    expect(e.reasons).toContainEqual(expect.objectContaining({ rule: "D4", positions: [1] }));
    expect(e.reasons).toContainEqual(expect.objectContaining({ rule: "D8", positions: [18] }));
  });

  test("D3: app-only, citing the fetch that brought its visibility", () => {
    const e = explain("notes__board");
    expect(e.status).toBe("app-only");
    expect(e.reasons).toContainEqual(expect.objectContaining({ rule: "D3", positions: [7] }));
  });

  test("R8: hidden because the key starts with _", () => {
    const e = explain("_internal__secret");
    expect(e.status).toBe("hidden");
    expect(e.reasons).toContainEqual(expect.objectContaining({ rule: "R8", positions: [5] }));
  });

  test("R1: the key comes from the display name", () => {
    const e = explain("websearch__search");
    expect(e.reasons[0]!.text).toContain('"Web Search"');
  });

  test("R9: filtered out by available_tools", () => {
    const e = explain("websearch__crawl");
    expect(e.status).toBe("filtered");
    expect(e.reasons).toContainEqual(expect.objectContaining({ rule: "R9", positions: [6, 11] }));
  });

  test("R10: the winner and the loser of a collision both cite the fetches", () => {
    const before = entries.slice(0, 21);
    const winner = explainTool(before, "a__b__c");
    expect(winner.extension).toBe("a");
    expect(winner.reasons).toContainEqual(
      expect.objectContaining({ rule: "R10", positions: [8, 9] }),
    );
  });

  test("R7: a tool whose extension was removed is explained, not unknown", () => {
    const removed = [
      ...entries,
      {
        position: 29,
        event: { type: "ExtensionRemoved" as const, v: 1 as const, extension: "notes" },
      },
    ];
    const e = explainTool(removed, "notes__add_note");
    expect(e.status).toBe("removed");
    expect(e.reasons).toContainEqual(expect.objectContaining({ rule: "R7", positions: [28, 29] }));
  });

  test("R3: a renamed tool: the old name is gone, the new one is unprefixed", () => {
    expect(explain("shell__run").status).toBe("removed");
    const e = explain("run");
    expect(e.reasons[0]).toMatchObject({ rule: "R3", positions: [27, 28] });
  });

  test("R13: a mangled name is recovered and says so", () => {
    const e = explain("notes.list_notes");
    expect(e.publicName).toBe("notes__list_notes");
    expect(e.reasons[0]).toMatchObject({ rule: "R13" });
  });

  test("an unknown name is reported with close names", () => {
    const e = explain("notes__add_notes");
    expect(e.status).toBe("unknown");
    expect(e.suggestions).toContain("notes__add_note");
  });
});
