import { decodeEvent } from "../events/decodeEvent.js";
import type { ToolledgerEvent } from "../events/events.js";
import { EventStoreError, type StoredEvent } from "./eventStore.js";

/** A row of a SQL store's `events` table as the store selects it (JSON as text). */
export interface EventRow {
  global_position: number;
  stream_id: string;
  stream_position: number;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
  /** ISO-8601 in UTC with milliseconds. */
  recorded_at: string;
}

/** The columns `decodeRowEvent` needs (a fold needs no metadata or times). */
export type EventDataRow = Pick<
  EventRow,
  "global_position" | "stream_id" | "stream_position" | "type" | "data"
>;

/** The store a row was read from, as its errors name it. */
export interface RowSource {
  /** The file, or the server (password redacted) and schema. */
  readonly label: string;
  /** What the user can do about a row that cannot be read back, in this store. */
  readonly advice: Readonly<Record<"STORE_CORRUPT" | "SCHEMA_TOO_NEW", string>>;
}

/**
 * Decodes a stored row with the core's schemas (E2): damaged JSON, an undecodable event or a
 * newer schema version is an EventStoreError naming the store and both positions, never a
 * silent skip.
 */
export function eventFromRow(row: EventRow, source: RowSource): StoredEvent {
  const event = decodeRowEvent(row, source);
  let metadata: unknown;
  try {
    metadata = JSON.parse(row.metadata);
  } catch (error) {
    throw corruptRow("STORE_CORRUPT", source, row, "its metadata is not valid JSON", error);
  }
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    throw corruptRow("STORE_CORRUPT", source, row, "its metadata is not a JSON object");
  }
  return {
    streamId: row.stream_id,
    streamPosition: row.stream_position,
    globalPosition: row.global_position,
    eventId: row.event_id,
    event,
    metadata: metadata as Record<string, unknown>,
    recordedAt: row.recorded_at,
  };
}

/** `eventFromRow` over a page of rows. */
export function eventsFromRows(rows: readonly EventRow[], source: RowSource): StoredEvent[] {
  const out = new Array<StoredEvent>(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = eventFromRow(rows[i]!, source);
  return out;
}

/** Decodes a row's event alone, with the same checks and errors as `eventFromRow`. */
export function decodeRowEvent(row: EventDataRow, source: RowSource): ToolledgerEvent {
  let json: unknown;
  try {
    json = JSON.parse(row.data);
  } catch (error) {
    throw corruptRow("STORE_CORRUPT", source, row, "its data is not valid JSON", error);
  }
  const decoded = decodeEvent(json);
  if (!decoded.ok) {
    const code = decoded.error.code === "UNSUPPORTED_VERSION" ? "SCHEMA_TOO_NEW" : "STORE_CORRUPT";
    throw corruptRow(code, source, row, decoded.error.message);
  }
  if (decoded.event.type !== row.type) {
    throw corruptRow(
      "STORE_CORRUPT",
      source,
      row,
      `its type column says ${row.type} but its data is a ${decoded.event.type}`,
    );
  }
  return decoded.event;
}

function corruptRow(
  code: "STORE_CORRUPT" | "SCHEMA_TOO_NEW",
  source: RowSource,
  row: EventDataRow,
  what: string,
  cause?: unknown,
): EventStoreError {
  return new EventStoreError(
    code,
    `${source.label}: event at global position ${row.global_position} (stream ${JSON.stringify(row.stream_id)}, position ${row.stream_position}) cannot be read: ${what}; ${source.advice[code]}`,
    cause === undefined ? undefined : { cause },
  );
}
