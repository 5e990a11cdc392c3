import {
  decodeRowEvent,
  type EventDataRow,
  evolve,
  initialState,
  REDUCER_VERSION,
  type State,
  type StateOptions,
} from "@toolledger/core";
import type { Query } from "./_connection.js";
import { EVENT_DATA_COLUMNS } from "./_eventRow.js";
import { CONVERSATION_TYPES_SQL, quoteIdent } from "./_schema.js";
import type { StoreLocation } from "./_storeError.js";

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

/** Rows fetched per round trip while folding (memory stays bounded for long sessions). */
const PAGE = 5000;

/**
 * D7: folds a session from its snapshot (when one exists for this reducer version and the
 * same options) or from the start, skipping conversation events before the latest `Compacted`
 * event: equal to replaying the whole stream. Run inside a REPEATABLE READ transaction, so
 * every page sees the same log.
 */
export async function loadStateFromRows(
  query: Query,
  schema: string,
  where: StoreLocation,
  sessionId: string,
  options: StateOptions,
): Promise<LoadedState> {
  const s = quoteIdent(schema);
  const base = initialState(options);
  const snapshot = await readSnapshot(query, s, sessionId, base.ownerMetaKey);
  const [positions] = await query<{ compacted: number | null; version: number | null }>(
    `SELECT (SELECT max(stream_position) FROM ${s}.events WHERE stream_id = $1 AND type = 'Compacted') AS compacted,
            (SELECT max(stream_position) FROM ${s}.events WHERE stream_id = $1) AS version`,
    [sessionId],
  );
  const compacted = positions?.compacted ?? null;
  let state = snapshot?.state ?? base;
  const from = snapshot?.position ?? 0;
  const version = positions?.version ?? from;
  // Conversation events before the latest Compacted are skipped in SQL: they are never read.
  const before = compacted ?? 0;
  const [count] = await query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${s}.events WHERE stream_id = $1 AND stream_position > $2 AND stream_position < $3 AND type IN ${CONVERSATION_TYPES_SQL}`,
    [sessionId, from, before],
  );
  let folded = 0;
  let after = from;
  for (;;) {
    const rows = await query<EventDataRow>(
      `SELECT ${EVENT_DATA_COLUMNS} FROM ${s}.events
       WHERE stream_id = $1 AND stream_position > $2 AND NOT (stream_position < $3 AND type IN ${CONVERSATION_TYPES_SQL})
       ORDER BY stream_position LIMIT ${PAGE}`,
      [sessionId, after, before],
    );
    for (const row of rows) {
      state = evolve(state, decodeRowEvent(row, where));
      folded++;
    }
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]!.stream_position;
  }
  return {
    state,
    version,
    startedFrom: snapshot ? "snapshot" : "initial",
    snapshotPosition: snapshot?.position ?? null,
    compactedPosition: compacted,
    folded,
    skipped: count?.n ?? 0,
  };
}

/**
 * The snapshot for this reducer version, or null. A snapshot is a disposable cache: one made
 * with other options or that does not parse is ignored and the log is folded instead.
 */
async function readSnapshot(
  query: Query,
  s: string,
  sessionId: string,
  ownerMetaKey: string,
): Promise<{ state: State; position: number } | null> {
  const [row] = await query<{ stream_position: number; state: string }>(
    `SELECT stream_position, state FROM ${s}.snapshots WHERE stream_id = $1 AND reducer_version = $2`,
    [sessionId, REDUCER_VERSION],
  );
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
