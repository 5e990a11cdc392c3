/** The columns of the core's `EventRow`, for a SELECT on `events`. */
export const EVENT_COLUMNS =
  "global_position, stream_id, stream_position, event_id, type, data, metadata, recorded_at";

/** The columns of the core's `EventDataRow` (what a fold needs). */
export const EVENT_DATA_COLUMNS = "global_position, stream_id, stream_position, type, data";
