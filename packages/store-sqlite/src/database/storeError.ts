import { EventStoreError, type EventStoreErrorCode, type RowSource } from "@toolledger/core";
import Database from "better-sqlite3";

const ADVICE: Record<EventStoreErrorCode, string> = {
  STORE_BUSY:
    "another connection held the write lock past the busy timeout; retry, or raise busyTimeoutMs",
  STORE_CLOSED: "open the store again",
  STORE_CORRUPT:
    "the file is damaged; restore it from a backup (run `PRAGMA integrity_check` to see where)",
  SCHEMA_TOO_NEW: "upgrade toolledger",
  NOT_A_DATABASE: "point toolledger at a toolledger event store or a new file",
  IO_ERROR: "check the disk (space, permissions, the directory exists) and retry",
  STORE_UNAVAILABLE: "retry",
  STORE_NOT_FOUND: "point toolledger at an existing event store",
  STORE_READ_ONLY:
    "make the file and its folder writable, or write to a file in a writable folder; readers can still open it read-only",
};

/**
 * Maps a raw SQLite error to an EventStoreError naming the file and what was being done,
 * so no raw SQLite error escapes the store. Other errors are returned unchanged.
 */
export function toStoreError(error: unknown, file: string, doing: string): unknown {
  if (error instanceof EventStoreError) return error;
  if (!(error instanceof Database.SqliteError)) return error;
  const code = codeOf(error.code);
  return new EventStoreError(
    code,
    `${file}: ${doing} failed: ${error.message} (${error.code}); ${ADVICE[code]}`,
    { cause: error, advice: ADVICE[code] },
  );
}

function codeOf(sqliteCode: string): EventStoreErrorCode {
  if (sqliteCode.startsWith("SQLITE_BUSY") || sqliteCode.startsWith("SQLITE_LOCKED")) {
    return "STORE_BUSY";
  }
  if (sqliteCode.startsWith("SQLITE_NOTADB")) return "NOT_A_DATABASE";
  if (sqliteCode.startsWith("SQLITE_READONLY")) return "STORE_READ_ONLY";
  // A constraint can only fail here when the file breaks the store's own invariants.
  if (sqliteCode.startsWith("SQLITE_CORRUPT") || sqliteCode.startsWith("SQLITE_CONSTRAINT")) {
    return "STORE_CORRUPT";
  }
  return "IO_ERROR";
}

/** Names the file in the errors of rows that cannot be read back (see the core's `eventFromRow`). */
export function rowSource(file: string): RowSource {
  return { label: file, advice: ADVICE };
}
