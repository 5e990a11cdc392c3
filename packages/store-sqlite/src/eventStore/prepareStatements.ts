import type { EventRow } from "@toolledger/core";
import type Database from "better-sqlite3";
import { EVENT_COLUMNS } from "../database/eventRow.js";

/** The statements an SQLite event store prepares once, at open. */
export interface Prepared {
  insert: Database.Statement<[string, number, string, string, number, string, string, string]>;
  insertChunk: Database.Statement<[(string | number)[]]>;
  streamVersion: Database.Statement<[string], number>;
  head: Database.Statement<[], number>;
  byEventId: Database.Statement<
    [string],
    {
      stream_id: string;
      stream_position: number;
      global_position: number;
      data: string;
      metadata: string;
    }
  >;
  readStream: Database.Statement<[string, number, number], EventRow>;
  readAll: Database.Statement<[number, number], EventRow>;
  begin: Database.Statement;
  commit: Database.Statement;
  rollback: Database.Statement;
}

/** Rows per multi-row INSERT statement (8 parameters each, well under SQLite's limit). */
export const INSERT_CHUNK = 16;

/** Prepares the store's statements on an open, migrated database. */
export function prepareStatements(db: Database.Database): Prepared {
  return {
    insert: db.prepare(
      "INSERT INTO events (stream_id, stream_position, event_id, type, schema_version, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    insertChunk: db.prepare<[(string | number)[]]>(
      `INSERT INTO events (stream_id, stream_position, event_id, type, schema_version, data, metadata, recorded_at) VALUES ${Array(INSERT_CHUNK).fill("(?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
    ),
    streamVersion: db
      .prepare<[string], number>(
        "SELECT coalesce(max(stream_position), 0) FROM events WHERE stream_id = ?",
      )
      .pluck(),
    head: db.prepare<[], number>("SELECT coalesce(max(global_position), 0) FROM events").pluck(),
    byEventId: db.prepare(
      "SELECT stream_id, stream_position, global_position, data, metadata FROM events WHERE event_id = ?",
    ),
    readStream: db.prepare(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND stream_position >= ? ORDER BY stream_position LIMIT ?`,
    ),
    readAll: db.prepare(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE global_position > ? ORDER BY global_position LIMIT ?`,
    ),
    begin: db.prepare("BEGIN IMMEDIATE"),
    commit: db.prepare("COMMIT"),
    rollback: db.prepare("ROLLBACK"),
  };
}
