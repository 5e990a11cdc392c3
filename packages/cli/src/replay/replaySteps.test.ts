import { replay, type ToolledgerEvent } from "@toolledger/core";
import { describe, expect, test } from "vitest";
import { sampleLog } from "../../testing/sampleLog.js";
import { type Change, replaySteps } from "./replaySteps.js";

const { entries } = sampleLog();
const steps = [...replaySteps(entries)].map((s) => s.step);
const at = (position: number): Change[] => steps.find((s) => s.position === position)!.changes;

describe("replaySteps: what each event changed", () => {
  test("one step per event, in order, with the version after it (R11)", () => {
    expect(steps.map((s) => s.position)).toEqual(entries.map((e) => e.position));
    expect(steps.at(-1)!.version).toBe(replay(entries.map((e) => e.event)).version);
  });

  test("R6/R11: an added extension and the version bump", () => {
    expect(at(2)).toEqual([
      {
        kind: "extension_added",
        extension: "notes",
        name: "notes",
        extensionKind: "stdio",
        hidden: false,
        replaced: false,
      },
      { kind: "version", from: 0, to: 1 },
    ]);
    expect(at(5)[0]).toMatchObject({
      kind: "extension_added",
      extension: "_internal",
      hidden: true,
    });
  });

  test("R9: tools added by a fetch, under their public names", () => {
    expect(at(7)).toEqual([
      {
        kind: "tools_added",
        extension: "notes",
        names: ["notes__add_note", "notes__board", "notes__list_notes", "notes__search_notes"],
      },
    ]);
  });

  test("R10: the a/b__c vs a__b/c collision names the winner and the loser", () => {
    expect(at(9)).toContainEqual({
      kind: "collision",
      publicName: "a__b__c",
      winner: "a",
      losers: ["a__b"],
    });
    expect(at(22)).toContainEqual({ kind: "collision_resolved", publicName: "a__b__c" });
  });

  test("R11: a stale fetch is reported as ignored and changes no tools", () => {
    expect(at(12)).toEqual([
      { kind: "stale_fetch_ignored", extension: "notes", startedAtVersion: 4, version: 5 },
    ]);
  });

  test("D5/D6: enables, a failed enable with its error, an orphan response", () => {
    expect(at(13)).toEqual([
      { kind: "enable_requested", callId: "call-1", names: ["notes__add_note"] },
    ]);
    expect(at(14)).toEqual([{ kind: "enabled", names: ["notes__add_note"] }]);
    expect(at(16)).toEqual([
      expect.objectContaining({
        kind: "enable_failed",
        callId: "call-2",
        code: "INVALID_TOOL_NAMES",
      }),
    ]);
    expect(at(21)).toEqual([
      { kind: "anomaly", anomaly: "response_without_request", callId: "orphan" },
    ]);
  });

  test("D7/D8: compaction says what it carries; clear empties the enabled set", () => {
    expect(at(17)).toEqual([{ kind: "compacted", enabled: ["notes__add_note"], pending: [] }]);
    expect(at(18)).toEqual([{ kind: "disabled", names: ["notes__add_note"] }]);
  });

  test("R7 and a failed fetch", () => {
    expect(at(22)[0]).toEqual({ kind: "extension_removed", extension: "a__b", toolsDropped: 1 });
    expect(at(24)).toEqual([
      { kind: "fetch_failed", extension: "flaky", error: "connection closed" },
    ]);
  });

  test("R3: a refetch under a new prefix reads as a rename", () => {
    expect(at(27)).toContainEqual({
      kind: "tools_removed",
      extension: "shell",
      names: ["shell__run"],
    });
    expect(at(28)).toEqual([
      { kind: "tool_renamed", extension: "shell", rawName: "run", from: "shell__run", to: "run" },
    ]);
  });

  test("an event that changes nothing says so", () => {
    const again = [...replaySteps([...entries, { position: 29, event: entries[1]!.event }])].at(
      -1,
    )!.step;
    expect(again.changes).toEqual([{ kind: "no_change" }]);
  });
});

describe("replaySteps: list changes and conversations", () => {
  test("R11: a list change names the extension that sent it", () => {
    const log: ToolledgerEvent[] = [
      {
        type: "ExtensionAdded",
        v: 1,
        name: "github",
        kind: "stdio",
        exposeUnprefixed: false,
        hidden: false,
        availableTools: [],
        configFingerprint: "f",
      },
      { type: "ToolsInvalidated", v: 1, extension: "github" },
    ];
    const steps = [...replaySteps(log.map((event, i) => ({ position: i + 1, event })))];
    expect(steps[1]!.step.changes).toEqual([
      { kind: "version", from: 1, to: 2 },
      { kind: "list_changed", extension: "github" },
    ]);
  });
});
