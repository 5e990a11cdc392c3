import { describe, expect, it } from "vitest";
import { type EventRow, eventFromRow, type RowSource } from "./eventFromRow.js";
import { EventStoreError } from "./eventStore.js";

const source: RowSource = {
  label: "store.db",
  advice: { STORE_CORRUPT: "restore a backup", SCHEMA_TOO_NEW: "upgrade toolledger" },
};

const event = { type: "ToolsInvalidated", v: 1, extension: "notes" };

function row(overrides: Partial<EventRow> = {}): EventRow {
  return {
    global_position: 7,
    stream_id: "s",
    stream_position: 3,
    event_id: "e-1",
    type: "ToolsInvalidated",
    data: JSON.stringify(event),
    metadata: '{"by":"test"}',
    recorded_at: "2025-01-02T03:04:05.006Z",
    ...overrides,
  };
}

function failure(r: EventRow): EventStoreError {
  try {
    eventFromRow(r, source);
  } catch (error) {
    expect(error).toBeInstanceOf(EventStoreError);
    return error as EventStoreError;
  }
  throw new Error("the row decoded");
}

describe("eventFromRow (E2: a SQL store's row back to a stored event)", () => {
  it("decodes a sound row", () => {
    expect(eventFromRow(row(), source)).toEqual({
      streamId: "s",
      streamPosition: 3,
      globalPosition: 7,
      eventId: "e-1",
      event,
      metadata: { by: "test" },
      recordedAt: "2025-01-02T03:04:05.006Z",
    });
  });

  it("a damaged row is STORE_CORRUPT naming the store, both positions and the store's advice", () => {
    for (const [damaged, what] of [
      [row({ data: "{" }), "its data is not valid JSON"],
      [row({ metadata: "[1]" }), "its metadata is not a JSON object"],
      [row({ metadata: "{" }), "its metadata is not valid JSON"],
      [row({ type: "Cleared" }), "its type column says Cleared but its data is a ToolsInvalidated"],
    ] as const) {
      const error = failure(damaged);
      expect(error.code).toBe("STORE_CORRUPT");
      expect(error.message).toBe(
        `store.db: event at global position 7 (stream "s", position 3) cannot be read: ${what}; restore a backup`,
      );
    }
  });

  it("an event of a newer schema version is SCHEMA_TOO_NEW, not skipped", () => {
    const error = failure(row({ data: JSON.stringify({ ...event, v: 99 }) }));
    expect(error.code).toBe("SCHEMA_TOO_NEW");
    expect(error.message).toMatch(/; upgrade toolledger$/);
  });
});
