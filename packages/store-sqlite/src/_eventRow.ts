import { decodeEvent, type StoredEvent, type ToolledgerEvent } from "@toolledger/core";
import { corruptRow } from "./_storeError.js";

/** A row of the `events` table as selected by the store. */
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

export const EVENT_COLUMNS =
  "global_position, stream_id, stream_position, event_id, type, data, metadata, recorded_at";

/**
 * Decodes a stored row with the core's schemas (E2): damaged JSON, an undecodable event or a
 * newer schema version is an error naming the file and both positions, never a silent skip.
 */
export function eventFromRow(row: EventRow, file: string): StoredEvent {
  const event = decodeRowEvent(row, file);
  let metadata: unknown;
  try {
    metadata = JSON.parse(row.metadata);
  } catch (error) {
    throw corruptRow("STORE_CORRUPT", file, row, "its metadata is not valid JSON", error);
  }
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    throw corruptRow("STORE_CORRUPT", file, row, "its metadata is not a JSON object");
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

/** The columns `decodeRowEvent` needs (a fold needs no metadata or times). */
export type EventDataRow = Pick<
  EventRow,
  "global_position" | "stream_id" | "stream_position" | "type" | "data"
>;

export const EVENT_DATA_COLUMNS = "global_position, stream_id, stream_position, type, data";

/** Decodes a row's event alone, with the same checks and errors as `eventFromRow`. */
export function decodeRowEvent(row: EventDataRow, file: string): ToolledgerEvent {
  let json: unknown;
  try {
    json = JSON.parse(row.data);
  } catch (error) {
    throw corruptRow("STORE_CORRUPT", file, row, "its data is not valid JSON", error);
  }
  const decoded = decodeEvent(json);
  if (!decoded.ok) {
    const code = decoded.error.code === "UNSUPPORTED_VERSION" ? "SCHEMA_TOO_NEW" : "STORE_CORRUPT";
    throw corruptRow(code, file, row, decoded.error.message);
  }
  if (decoded.event.type !== row.type) {
    throw corruptRow(
      "STORE_CORRUPT",
      file,
      row,
      `its type column says ${row.type} but its data is a ${decoded.event.type}`,
    );
  }
  return decoded.event;
}
