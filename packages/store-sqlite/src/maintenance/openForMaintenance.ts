import { existsSync } from "node:fs";
import { EventStoreError } from "@toolledger/core";
import Database from "better-sqlite3";
import { loadSqlite } from "../database/loadSqlite.js";
import { openReadOnlyDatabase } from "../database/readOnlyDatabase.js";
import { requireWritable } from "../database/requireWritable.js";
import { APPLICATION_ID } from "../database/schema.js";

/** The maintenance log: what was done to the file outside of appends (scrubs, prunes), append-only itself. */
const MAINTENANCE_TABLE = `
  CREATE TABLE IF NOT EXISTS maintenance (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    action TEXT NOT NULL,
    detail TEXT NOT NULL CHECK (json_valid(detail))
  ) STRICT;
  CREATE TRIGGER IF NOT EXISTS maintenance_refuse_update BEFORE UPDATE ON maintenance
  BEGIN SELECT RAISE(ABORT, 'toolledger maintenance records are append-only: UPDATE is refused'); END;
  CREATE TRIGGER IF NOT EXISTS maintenance_refuse_delete BEFORE DELETE ON maintenance
  BEGIN SELECT RAISE(ABORT, 'toolledger maintenance records are append-only: DELETE is refused'); END;
`;

/**
 * Opens an event store file for a maintenance job: it must exist, be a toolledger store and
 * pass `integrity_check`; unless `readOnlyJob`, the connection takes the file exclusively
 * until it closes (a `serve` still running on it could write back what the job removes).
 */
export function openForMaintenance(
  file: string,
  options: { busyTimeoutMs?: number; readOnlyJob: boolean; what: string },
): Database.Database {
  if (!existsSync(file))
    throw new EventStoreError("IO_ERROR", `${file}: no such database; check --db`);
  const timeout = options.busyTimeoutMs ?? 2000;
  // A job that only looks (a dry run) reads where a reader can; one that changes the file says
  // plainly when it cannot write there.
  if (!options.readOnlyJob) requireWritable(file);
  loadSqlite();
  const db = options.readOnlyJob
    ? openReadOnlyDatabase(file, timeout)
    : new Database(file, { fileMustExist: true, timeout });
  try {
    if (!options.readOnlyJob) {
      try {
        db.pragma("locking_mode = EXCLUSIVE");
        db.exec("BEGIN EXCLUSIVE");
        db.exec("COMMIT");
      } catch (error) {
        if (error instanceof Database.SqliteError && error.code.startsWith("SQLITE_BUSY")) {
          throw new EventStoreError(
            "STORE_BUSY",
            `${file} is open in another process (a running \`toolledger serve\`?); stop it and ${options.what} again`,
            { cause: error },
          );
        }
        throw error;
      }
      db.pragma("secure_delete = ON");
    }
    const appId = db.pragma("application_id", { simple: true }) as number;
    if (appId !== APPLICATION_ID) {
      throw new EventStoreError(
        "NOT_A_DATABASE",
        `${file}: this SQLite file is not a toolledger event store (application_id ${appId}); nothing was changed`,
      );
    }
    const before = integrityCheck(db);
    if (before[0] !== "ok") {
      throw new EventStoreError(
        "STORE_CORRUPT",
        `${file}: the database is damaged (${before.slice(0, 3).join("; ")}); it is changed only when sound: restore a backup or recover it first (sqlite3 ${file} .recover)`,
      );
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

export function integrityCheck(db: Database.Database): string[] {
  return (db.pragma("integrity_check") as Record<string, unknown>[]).map((row) =>
    String(Object.values(row)[0]),
  );
}

/**
 * Runs `change` in one IMMEDIATE transaction with an append-only trigger of the events table
 * lifted (restored exactly as it was), and adds a maintenance record; returns its id.
 */
export function maintainEvents(
  db: Database.Database,
  trigger: "events_refuse_update" | "events_refuse_delete",
  record: { at: string; action: string; detail: Record<string, unknown> },
  change: () => void,
): number {
  const saved = db
    .prepare<[string], { sql: string }>(
      "SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?",
    )
    .get(trigger);
  const run = db.transaction(() => {
    if (saved) db.exec(`DROP TRIGGER ${trigger}`);
    change();
    db.exec(MAINTENANCE_TABLE);
    const id = db
      .prepare("INSERT INTO maintenance (at, action, detail) VALUES (?, ?, ?)")
      .run(record.at, record.action, JSON.stringify(record.detail)).lastInsertRowid;
    if (saved) db.exec(saved.sql);
    return Number(id);
  });
  return run.immediate();
}

/** Truncates the WAL and rebuilds the file, so nothing removed survives in old frames or free pages. */
export function reclaimSpace(db: Database.Database): void {
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.exec("VACUUM");
  db.pragma("wal_checkpoint(TRUNCATE)");
}
