import { EventStoreError } from "@toolledger/core";
import Database from "better-sqlite3";
import { loadSqlite } from "./loadSqlite.js";
import { toStoreError } from "./storeError.js";

/** What a snapshot read can ask of another program's database: rows, and which columns exist. */
export interface SnapshotQuery {
  all<T = Record<string, unknown>>(sql: string, ...params: unknown[]): T[];
  get<T = Record<string, unknown>>(sql: string, ...params: unknown[]): T | undefined;
  /** The columns of a table (empty when the table does not exist). */
  columns(table: string): ReadonlySet<string>;
  /** The tables of the database. */
  tables(): ReadonlySet<string>;
}

export interface SnapshotOptions {
  /** How long to wait for a writer that holds the database in a state readers must wait for. */
  busyTimeoutMs?: number;
}

/**
 * Reads another program's SQLite file (goose's `sessions.db`) while that program may be writing
 * it: opened read-only with `query_only` on (this connection can never write, create or
 * checkpoint), every query of `read` in one read transaction, so what is read is one consistent
 * snapshot (WAL: readers never block the writer, and the snapshot is released as soon as `read`
 * returns). Failures are EventStoreErrors naming the file.
 */
export function readSqliteSnapshot<T>(
  file: string,
  read: (q: SnapshotQuery) => T,
  options: SnapshotOptions = {},
): T {
  let db: Database.Database;
  try {
    loadSqlite();
    db = new Database(file, {
      readonly: true,
      fileMustExist: true,
      timeout: options.busyTimeoutMs ?? 2000,
    });
  } catch (error) {
    if (error instanceof Database.SqliteError || (error as { code?: string }).code === "ENOENT") {
      throw new EventStoreError(
        "STORE_NOT_FOUND",
        `${file}: cannot open it read-only: ${String((error as Error).message)}`,
        {
          cause: error,
        },
      );
    }
    throw toStoreError(error, file, "opening it read-only");
  }
  try {
    db.pragma("query_only = ON");
    const q: SnapshotQuery = {
      all: <R>(sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as R[],
      get: <R>(sql: string, ...params: unknown[]) =>
        db.prepare(sql).get(...params) as R | undefined,
      columns: (table) =>
        new Set(
          (
            db.prepare("SELECT name FROM pragma_table_info(?)").all(table) as { name: string }[]
          ).map((r) => r.name),
        ),
      tables: () =>
        new Set(
          (
            db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
              name: string;
            }[]
          ).map((r) => r.name),
        ),
    };
    // A deferred transaction takes its snapshot at the first read and keeps it to the end.
    return db.transaction(() => read(q))();
  } catch (error) {
    throw toStoreError(error, file, "reading it");
  } finally {
    db.close();
  }
}
