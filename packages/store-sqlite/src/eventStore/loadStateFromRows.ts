import {
  type EventDataRow,
  type LoadedState,
  REDUCER_VERSION,
  type RowSource,
  SnapshotFold,
  type SnapshotRow,
  type StateOptions,
} from "@toolledger/core";
import type Database from "better-sqlite3";
import { EVENT_DATA_COLUMNS } from "../database/eventRow.js";
import { CONVERSATION_TYPES_SQL } from "../database/schema.js";

/**
 * D7: folds a session from its snapshot or from the start, skipping conversation events
 * before the latest `Compacted` event (see the core's `SnapshotFold`). Run inside a read
 * transaction.
 */
export function loadStateFromRows(
  db: Database.Database,
  source: RowSource,
  sessionId: string,
  options: StateOptions,
): LoadedState {
  const snapshot = db
    .prepare<[string, number], SnapshotRow>(
      "SELECT stream_position, state FROM snapshots WHERE stream_id = ? AND reducer_version = ?",
    )
    .get(sessionId, REDUCER_VERSION);
  const load = new SnapshotFold(source, options, snapshot);
  const compacted =
    db
      .prepare<[string], number | null>(
        "SELECT max(stream_position) FROM events WHERE stream_id = ? AND type = 'Compacted'",
      )
      .pluck()
      .get(sessionId) ?? null;
  const version =
    db
      .prepare<[string], number | null>(
        "SELECT max(stream_position) FROM events WHERE stream_id = ?",
      )
      .pluck()
      .get(sessionId) ?? null;
  // Conversation events before the latest Compacted are skipped in SQL: they are never read.
  const before = compacted ?? 0;
  const skipped = db
    .prepare<[string, number, number], number>(
      `SELECT count(*) FROM events WHERE stream_id = ? AND stream_position > ? AND stream_position < ? AND type IN ${CONVERSATION_TYPES_SQL}`,
    )
    .pluck()
    .get(sessionId, load.from, before)!;
  const rows = db
    .prepare<[string, number, number], EventDataRow>(
      `SELECT ${EVENT_DATA_COLUMNS} FROM events WHERE stream_id = ? AND stream_position > ? AND NOT (stream_position < ? AND type IN ${CONVERSATION_TYPES_SQL}) ORDER BY stream_position`,
    )
    .iterate(sessionId, load.from, before);
  for (const row of rows) load.fold(row);
  return load.finish({ version, compacted, skipped });
}
