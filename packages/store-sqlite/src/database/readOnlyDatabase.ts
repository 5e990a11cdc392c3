import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { EventStoreError } from "@toolledger/core";
import Database from "better-sqlite3";
import { loadSqlite } from "./loadSqlite.js";
import { requireCurrentSchema } from "./schema.js";
import { toStoreError } from "./storeError.js";

/**
 * The connection of a store opened with `readOnly`: an existing file at the current schema,
 * opened so that nothing is written to it or its folder. Throws EventStoreError.
 */
export function openReadOnlyStoreFile(
  file: string,
  options: { verify?: boolean; busyTimeoutMs?: number },
): Database.Database {
  if (file === ":memory:" || file === "") {
    throw new EventStoreError("STORE_NOT_FOUND", "an in-memory store cannot be opened read-only");
  }
  if (options.verify === true) {
    throw new EventStoreError(
      "STORE_READ_ONLY",
      `${file}: verify checks a file before writing to it; a read-only store writes nothing`,
    );
  }
  if (!existsSync(file)) {
    throw new EventStoreError(
      "STORE_NOT_FOUND",
      `${file}: no event store here (opened read-only, so nothing was created)`,
    );
  }
  let db: Database.Database | undefined;
  try {
    db = openReadOnlyDatabase(file, options.busyTimeoutMs ?? 5000);
    requireCurrentSchema(db, file);
    return db;
  } catch (error) {
    db?.close();
    throw toStoreError(error, file, "opening the event store read-only");
  }
}

/**
 * A read-only connection that writes nothing to the file or its folder. A WAL file is read
 * through `<file>-shm`, which SQLite must create beside it; in a folder the reader cannot
 * write (a shared archive, a read-only mount) and with no `<file>-wal` holding frames, the
 * file alone is the whole log, so it is opened `immutable` instead (no locks, no -shm).
 */
export function openReadOnlyDatabase(file: string, timeoutMs: number): Database.Database {
  loadSqlite();
  const db = new Database(plainName(file), {
    readonly: true,
    fileMustExist: true,
    timeout: timeoutMs,
  });
  try {
    // The first read opens the WAL index: this is where a read-only folder shows.
    db.prepare("SELECT count(*) FROM sqlite_schema").get();
    return db;
  } catch (error) {
    db.close();
    const code = (error as { code?: unknown }).code;
    if (typeof code !== "string" || !/^SQLITE_(READONLY|CANTOPEN)/.test(code)) throw error;
  }
  const wal = `${file}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0) {
    throw new EventStoreError(
      "STORE_READ_ONLY",
      `${file}: cannot read it in place: its folder is read-only and ${wal} holds events not yet merged into the file (SQLite must create ${file}-shm beside them to read them); copy ${file} and ${wal} together to a writable folder and read the copy`,
    );
  }
  try {
    const immutable = new Database(`${pathToFileURL(resolve(file)).href}?immutable=1`, {
      readonly: true,
      fileMustExist: true,
      timeout: timeoutMs,
    });
    immutable.prepare("SELECT count(*) FROM sqlite_schema").get();
    return immutable;
  } catch (error) {
    if ((error as { code?: unknown }).code !== "SQLITE_CANTOPEN") throw error;
    // URI names are off in this process (SQLITE_USE_URI=0, or SQLite was loaded before us).
    throw new EventStoreError(
      "STORE_READ_ONLY",
      `${file}: cannot read it in place: its folder is read-only, SQLite needs to create ${file}-shm there to read a WAL file, and URI filenames (for an immutable open) are off in this process (SQLITE_USE_URI); copy the file to a writable folder and read the copy`,
      { cause: error },
    );
  }
}

/** A file name SQLite does not take for a URI. */
export function plainName(file: string): string {
  return file.startsWith("file:") ? `./${file}` : file;
}
