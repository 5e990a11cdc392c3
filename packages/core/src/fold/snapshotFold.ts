import { decodeRowEvent, type EventDataRow, type RowSource } from "../store/eventFromRow.js";
import { evolve } from "./evolve.js";
import { initialState, REDUCER_VERSION, type State, type StateOptions } from "./state.js";

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

/** A row of a SQL store's `snapshots` table for REDUCER_VERSION (the state as JSON text). */
export interface SnapshotRow {
  stream_position: number;
  state: string;
}

/**
 * D7 for SQL stores: a session folded from its snapshot (when one exists for this reducer
 * version and the same options) or from the start. The store reads the snapshot row, folds
 * the rows after `from` that its SQL did not skip (conversation events before the latest
 * `Compacted`), all in one read transaction, and finishes with the stream's positions: equal
 * to replaying the whole stream.
 */
export class SnapshotFold {
  /** The stream position the fold starts after (the snapshot's, or 0). */
  readonly from: number;
  readonly #source: RowSource;
  readonly #snapshot: boolean;
  #state: State;
  #folded = 0;

  constructor(source: RowSource, options: StateOptions, snapshot: SnapshotRow | undefined) {
    this.#source = source;
    const base = initialState(options);
    const state = snapshot === undefined ? null : parseSnapshot(snapshot.state, base.ownerMetaKey);
    this.#snapshot = state !== null;
    this.#state = state ?? base;
    this.from = state === null ? 0 : snapshot!.stream_position;
  }

  /** Decodes (E2: a damaged row throws, naming the store) and folds one event. */
  fold(row: EventDataRow): void {
    this.#state = evolve(this.#state, decodeRowEvent(row, this.#source));
    this.#folded++;
  }

  /**
   * The loaded state, given the stream's last position (null: no events), the latest
   * `Compacted` event's (null: none) and how many conversation events the SQL skipped.
   */
  finish(stream: {
    version: number | null;
    compacted: number | null;
    skipped: number;
  }): LoadedState {
    return {
      state: this.#state,
      version: stream.version ?? this.from,
      startedFrom: this.#snapshot ? "snapshot" : "initial",
      snapshotPosition: this.#snapshot ? this.from : null,
      compactedPosition: stream.compacted,
      folded: this.#folded,
      skipped: stream.skipped,
    };
  }
}

/**
 * The snapshot's state, or null. A snapshot is a disposable cache: one made with other
 * options or that does not parse is ignored and the log is folded instead.
 */
function parseSnapshot(json: string, ownerMetaKey: string): State | null {
  let state: State;
  try {
    state = JSON.parse(json) as State;
  } catch {
    // Why: the snapshot is only a cache; the events are the truth and are folded instead.
    return null;
  }
  if (state.reducerVersion !== REDUCER_VERSION || state.ownerMetaKey !== ownerMetaKey) return null;
  return state;
}
