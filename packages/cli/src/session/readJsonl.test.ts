import { describe, expect, test } from "vitest";
import { CliError } from "../program/cliError.js";
import { parseJsonl } from "./readJsonl.js";

const added = {
  type: "ExtensionAdded",
  v: 1,
  name: "notes",
  kind: "stdio",
  configFingerprint: "fp",
};

function refusal(text: string): CliError {
  try {
    parseJsonl("log.jsonl", text);
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error("expected the log to be refused");
}

describe("reading JSONL logs (E1, E2)", () => {
  test("bare events and export lines; blank lines skipped; positions are ordinals, lines are kept", () => {
    const exportLine = {
      session: "s1",
      position: 2,
      eventId: "e2",
      recordedAt: "2026-01-01T00:00:00Z",
      metadata: { k: 1 },
      event: { type: "Cleared", v: 1 },
    };
    const log = parseJsonl(
      "log.jsonl",
      `${JSON.stringify(added)}\n\n${JSON.stringify(exportLine)}\n`,
    );
    expect(log.entries.map((e) => [e.position, e.line, e.event.type])).toEqual([
      [1, 1, "ExtensionAdded"],
      [2, 3, "Cleared"],
    ]);
    expect(log.entries[1]).toMatchObject({
      eventId: "e2",
      recordedAt: "2026-01-01T00:00:00Z",
      metadata: { k: 1 },
    });
    expect(log.session).toBe("s1");
  });

  test("a damaged line names its line number", () => {
    const e = refusal(`${JSON.stringify(added)}\n{"type": "Cleared", "v": 1\n`);
    expect(e.kind).toBe("badInput");
    expect(e.message).toMatch(/^log\.jsonl:2: not valid JSON/);
  });

  test("an invalid field names the line and the field path", () => {
    const e = refusal(`${JSON.stringify({ ...added, name: 42 })}\n`);
    expect(e.message).toMatch(/^log\.jsonl:1: INVALID_FIELD: field name:/);
  });

  test("E2: an unknown event type says so", () => {
    const e = refusal(
      `${JSON.stringify(added)}\n${JSON.stringify({ type: "ToolsExploded", v: 1 })}\n`,
    );
    expect(e.message).toMatch(
      /^log\.jsonl:2: UNKNOWN_TYPE: field type: unknown event type "ToolsExploded"/,
    );
  });

  test("E2: a newer schema version says so and what to do", () => {
    const e = refusal(`${JSON.stringify({ ...added, v: 2 })}\n`);
    expect(e.message).toMatch(/^log\.jsonl:1: UNSUPPORTED_VERSION/);
    expect(e.hint).toContain("upgrade");
  });
});
