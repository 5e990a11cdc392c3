import { decodeEvent, type StoredEvent, type ToolledgerEvent } from "@toolledger/core";
import { corruptRow, type StoreLocation } from "./_storeError.js";

/** A row of the `events` table as selected by the store (JSON as text, positions as numbers). */
export interface EventRow {
  global_position: number;
  stream_id: string;
  stream_position: number;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
  recorded_at: string;
}

/** `recorded_at` as ISO-8601 in UTC with milliseconds, as the other stores give it. */
const RECORDED_AT = `to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at`;

export const EVENT_COLUMNS = `global_position, stream_id, stream_position, event_id, type, data, metadata, ${RECORDED_AT}`;

/** The columns a fold needs (no metadata or times). */
export type EventDataRow = Pick<
  EventRow,
  "global_position" | "stream_id" | "stream_position" | "type" | "data"
>;

export const EVENT_DATA_COLUMNS = "global_position, stream_id, stream_position, type, data";

/**
 * Decodes a stored row with the core's schemas (E2): damaged JSON, an undecodable event or a
 * newer schema version is an error naming the store and both positions, never a silent skip.
 */
export function eventFromRow(row: EventRow, where: StoreLocation): StoredEvent {
  const event = decodeRowEvent(row, where);
  let metadata: unknown;
  try {
    metadata = JSON.parse(row.metadata);
  } catch (error) {
    throw corruptRow("STORE_CORRUPT", where, row, "its metadata is not valid JSON", error);
  }
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    throw corruptRow("STORE_CORRUPT", where, row, "its metadata is not a JSON object");
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

/** Decodes a row's event alone, with the same checks and errors as `eventFromRow`. */
export function decodeRowEvent(row: EventDataRow, where: StoreLocation): ToolledgerEvent {
  let json: unknown;
  try {
    json = JSON.parse(row.data);
  } catch (error) {
    throw corruptRow("STORE_CORRUPT", where, row, "its data is not valid JSON", error);
  }
  const decoded = decodeEvent(json);
  if (!decoded.ok) {
    const code = decoded.error.code === "UNSUPPORTED_VERSION" ? "SCHEMA_TOO_NEW" : "STORE_CORRUPT";
    throw corruptRow(code, where, row, decoded.error.message);
  }
  if (decoded.event.type !== row.type) {
    throw corruptRow(
      "STORE_CORRUPT",
      where,
      row,
      `its type column says ${row.type} but its data is a ${decoded.event.type}`,
    );
  }
  return decoded.event;
}
