// The SQL of the store's appends and reads: the statements prepared per connection, the row
// the append function returns, and the session listing.

import type { ExpectedVersion } from "@toolledger/core";
import { quoteIdent } from "../database/schema.js";
import { EVENT_COLUMNS, isoTime } from "./eventRow.js";

/** What `append_events` returns: the outcome, and the positions or the conflict. */
export interface AppendRow {
  outcome: "ok" | "conflict" | "duplicate";
  next_expected: number | null;
  first_global: number | null;
  last_global: number | null;
  actual: number | null;
  event_id: string | null;
  message: string | null;
}

/** The statements of appends and reads on one schema, prepared by name on each connection. */
export function statements(schema: string) {
  const s = quoteIdent(schema);
  return {
    append: `SELECT * FROM ${s}.append_events($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    readStream: `SELECT ${EVENT_COLUMNS} FROM ${s}.events WHERE stream_id = $1 AND stream_position >= $2 ORDER BY stream_position LIMIT $3`,
    readAll: `SELECT ${EVENT_COLUMNS} FROM ${s}.events WHERE global_position > $1 ORDER BY global_position LIMIT $2`,
    streamVersion: `SELECT coalesce(max(stream_position), 0) AS version FROM ${s}.events WHERE stream_id = $1`,
  };
}

/** The expected version as the append function reads it; anything unknown never matches. */
export function expectedText(expected: ExpectedVersion): string {
  if (expected === "any" || expected === "no_stream" || expected === "stream_exists") {
    return expected;
  }
  return typeof expected === "number" && Number.isSafeInteger(expected) && expected >= 0
    ? String(expected)
    : "never";
}

/** The sessions (streams) with their first and last events, in the order they began. */
export function sessionsQuery(schema: string): string {
  const s = quoteIdent(schema);
  return `SELECT t.stream_id, t.n, f.global_position AS first_global, l.global_position AS last_global,
              ${isoTime("f.recorded_at")} AS first_at, ${isoTime("l.recorded_at")} AS last_at
       FROM (SELECT stream_id, max(stream_position) AS n FROM ${s}.events GROUP BY stream_id) AS t
       JOIN ${s}.events AS f ON f.stream_id = t.stream_id AND f.stream_position = 1
       JOIN ${s}.events AS l ON l.stream_id = t.stream_id AND l.stream_position = t.n
       ORDER BY f.global_position`;
}
