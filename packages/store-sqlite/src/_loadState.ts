import {
  decodeRowEvent,
  type EventDataRow,
  evolve,
  initialState,
  REDUCER_VERSION,
  type RowSource,
  type State,
  type StateOptions,
} from "@toolledger/core";
import type Database from "better-sqlite3";
import { EVENT_DATA_COLUMNS } from "./_eventRow.js";
import { CONVERSATION_TYPES_SQL } from "./_schema.js";

/** A session's state and where the fold started. */
export interface LoadedState {
  state: State;
  /** The stream's version the state reflects (its last position; 0 for an empty stream). */
  version: number;
  /** What the fold started from: the initial state, or a snapshot at `snapshotPosition`. */
  startedFrom: "initial" | "snapshot";
  snapshotPosition: number | null;
  /** Position of the latest `Compacted` event, before which conversation events were skipped. */
  compactedPosition: number | null;
  /** Events decoded and folded. */
  folded: number;
  /** Conversation events skipped because a later `Compacted` event carries their effect (D7). */
  skipped: number;
}

/**
 * D7: folds a session from its snapshot (when one exists for this reducer version and the
 * same options) or from the start, skipping conversation events before the latest `Compacted`
 * event: equal to replaying the whole stream. Run inside a read transaction.
 */
export function loadStateFromRows(
  db: Database.Database,
  source: RowSource,
  sessionId: string,
  options: StateOptions,
): LoadedState {
  const base = initialState(options);
  const snapshot = readSnapshot(db, sessionId, base.ownerMetaKey);
  const compacted =
    db
      .prepare<[string], number | null>(
        "SELECT max(stream_position) FROM events WHERE stream_id = ? AND type = 'Compacted'",
      )
      .pluck()
      .get(sessionId) ?? null;
  let state = snapshot?.state ?? base;
  const from = snapshot?.position ?? 0;
  const version =
    db
      .prepare<[string], number | null>(
        "SELECT max(stream_position) FROM events WHERE stream_id = ?",
      )
      .pluck()
      .get(sessionId) ?? from;
  // Conversation events before the latest Compacted are skipped in SQL: they are never read.
  const before = compacted ?? 0;
  const skipped = db
    .prepare<[string, number, number], number>(
      `SELECT count(*) FROM events WHERE stream_id = ? AND stream_position > ? AND stream_position < ? AND type IN ${CONVERSATION_TYPES_SQL}`,
    )
    .pluck()
    .get(sessionId, from, before)!;
  const rows = db
    .prepare<[string, number, number], EventDataRow>(
      `SELECT ${EVENT_DATA_COLUMNS} FROM events WHERE stream_id = ? AND stream_position > ? AND NOT (stream_position < ? AND type IN ${CONVERSATION_TYPES_SQL}) ORDER BY stream_position`,
    )
    .iterate(sessionId, from, before);
  let folded = 0;
  for (const row of rows) {
    state = evolve(state, decodeRowEvent(row, source));
    folded++;
  }
  return {
    state,
    version,
    startedFrom: snapshot ? "snapshot" : "initial",
    snapshotPosition: snapshot?.position ?? null,
    compactedPosition: compacted,
    folded,
    skipped,
  };
}

/**
 * The snapshot for this reducer version, or null. A snapshot is a disposable cache: one made
 * with other options or that does not parse is ignored and the log is folded instead.
 */
function readSnapshot(
  db: Database.Database,
  sessionId: string,
  ownerMetaKey: string,
): { state: State; position: number } | null {
  const row = db
    .prepare<[string, number], { stream_position: number; state: string }>(
      "SELECT stream_position, state FROM snapshots WHERE stream_id = ? AND reducer_version = ?",
    )
    .get(sessionId, REDUCER_VERSION);
  if (!row) return null;
  let state: State;
  try {
    state = JSON.parse(row.state) as State;
  } catch {
    // Why: the snapshot is only a cache; the events are the truth and are folded instead.
    return null;
  }
  if (state.reducerVersion !== REDUCER_VERSION || state.ownerMetaKey !== ownerMetaKey) return null;
  return { state, position: row.stream_position };
}
