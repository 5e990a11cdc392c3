/** `recorded_at` as ISO-8601 in UTC with milliseconds, as the other stores give it. */
const RECORDED_AT = `to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at`;

/** The columns of the core's `EventRow` (JSON as text, positions as numbers), for a SELECT on `events`. */
export const EVENT_COLUMNS = `global_position, stream_id, stream_position, event_id, type, data, metadata, ${RECORDED_AT}`;

/** The columns of the core's `EventDataRow` (what a fold needs). */
export const EVENT_DATA_COLUMNS = "global_position, stream_id, stream_position, type, data";

/** A timestamp column as ISO-8601 in UTC with milliseconds (SQL text). */
export function isoTime(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
