import {
  type EventDataRow,
  type LoadedState,
  REDUCER_VERSION,
  SnapshotFold,
  type SnapshotRow,
  type StateOptions,
} from "@toolledger/core";
import type { Query } from "../database/connection.js";
import { CONVERSATION_TYPES_SQL, quoteIdent } from "../database/schema.js";
import type { StoreLocation } from "../database/storeError.js";
import { EVENT_DATA_COLUMNS } from "./eventRow.js";

/** Rows fetched per round trip while folding (memory stays bounded for long sessions). */
const PAGE = 5000;

/**
 * D7: folds a session from its snapshot or from the start, skipping conversation events
 * before the latest `Compacted` event (see the core's `SnapshotFold`). Run inside a
 * REPEATABLE READ transaction, so every page sees the same log.
 */
export async function loadStateFromRows(
  query: Query,
  schema: string,
  where: StoreLocation,
  sessionId: string,
  options: StateOptions,
): Promise<LoadedState> {
  const s = quoteIdent(schema);
  const [snapshot] = await query<SnapshotRow>(
    `SELECT stream_position, state FROM ${s}.snapshots WHERE stream_id = $1 AND reducer_version = $2`,
    [sessionId, REDUCER_VERSION],
  );
  const load = new SnapshotFold(where, options, snapshot);
  const [positions] = await query<{ compacted: number | null; version: number | null }>(
    `SELECT (SELECT max(stream_position) FROM ${s}.events WHERE stream_id = $1 AND type = 'Compacted') AS compacted,
            (SELECT max(stream_position) FROM ${s}.events WHERE stream_id = $1) AS version`,
    [sessionId],
  );
  const compacted = positions?.compacted ?? null;
  // Conversation events before the latest Compacted are skipped in SQL: they are never read.
  const before = compacted ?? 0;
  const [count] = await query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${s}.events WHERE stream_id = $1 AND stream_position > $2 AND stream_position < $3 AND type IN ${CONVERSATION_TYPES_SQL}`,
    [sessionId, load.from, before],
  );
  let after = load.from;
  for (;;) {
    const rows = await query<EventDataRow>(
      `SELECT ${EVENT_DATA_COLUMNS} FROM ${s}.events
       WHERE stream_id = $1 AND stream_position > $2 AND NOT (stream_position < $3 AND type IN ${CONVERSATION_TYPES_SQL})
       ORDER BY stream_position LIMIT ${PAGE}`,
      [sessionId, after, before],
    );
    for (const row of rows) load.fold(row);
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]!.stream_position;
  }
  return load.finish({
    version: positions?.version ?? null,
    compacted,
    skipped: count?.n ?? 0,
  });
}
