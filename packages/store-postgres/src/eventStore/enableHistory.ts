// The events an enable audit (D6) reads, paged out of the log.

import { type EventRow, eventFromRow, type StoredEvent } from "@toolledger/core";
import type { Query } from "../database/connection.js";
import { CONVERSATION_TYPES_SQL, quoteIdent } from "../database/schema.js";
import type { StoreLocation } from "../database/storeError.js";
import { EVENT_COLUMNS } from "./eventRow.js";

/** Rows per page when a method reads more than one page (audit, listing). */
const PAGE = 5000;

/**
 * The conversation events of one session (`sessionId`) or of all, in log order. Pages by
 * position: memory grows with the requests, not with the log. Positions become visible in
 * order, so pages read outside one transaction still form one prefix of the log.
 */
export async function* enableHistoryEvents(
  query: Query,
  schema: string,
  location: StoreLocation,
  sessionId: string | undefined,
): AsyncGenerator<StoredEvent> {
  const s = quoteIdent(schema);
  const where = `type IN ${CONVERSATION_TYPES_SQL}`;
  const one = sessionId;
  let after = 0;
  for (;;) {
    const rows =
      one === undefined
        ? await query<EventRow>(
            `SELECT ${EVENT_COLUMNS} FROM ${s}.events WHERE ${where} AND global_position > $1 ORDER BY global_position LIMIT ${PAGE}`,
            [after],
          )
        : await query<EventRow>(
            `SELECT ${EVENT_COLUMNS} FROM ${s}.events WHERE stream_id = $2 AND ${where} AND stream_position > $1 ORDER BY stream_position LIMIT ${PAGE}`,
            [after, one],
          );
    for (const row of rows) yield eventFromRow(row, location);
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1]!;
    after = one === undefined ? last.global_position : last.stream_position;
  }
}
