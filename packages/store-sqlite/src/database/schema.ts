import { EventStoreError } from "@toolledger/core";
import type Database from "better-sqlite3";

/** `PRAGMA application_id` of a toolledger event store ("TLED"), so a foreign SQLite file is refused. */
export const APPLICATION_ID = 0x544c4544;

/** The schema version this build writes (`PRAGMA user_version`). */
export const SCHEMA_VERSION = 4;

/**
 * The event catalogue (core's EVENT_CATALOG) each schema version may hold, from version 1:
 * a new catalogue raises the schema version, so an older toolledger refuses the file.
 */
export const SCHEMA_EVENT_CATALOG: readonly number[] = [1, 2, 3, 4];

/**
 * The oldest schema version a read-only open reads as it is (no migration: a reader changes
 * nothing). Every step since changed no table the readers read (step 3 adds `leases`, which
 * only writers use), so a 0.1.0 file is read in place.
 */
export const READABLE_SCHEMA_FROM = 1;

/** Conversation event types (D6–D8), listed for SQL filters. */
export const CONVERSATION_TYPES_SQL =
  "('EnableToolsRequested','EnableToolsResponded','Compacted','Cleared')";

/** Migration `i` takes the schema from version `i` to `i + 1`. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE events (
    global_position INTEGER PRIMARY KEY AUTOINCREMENT,
    stream_id TEXT NOT NULL,
    stream_position INTEGER NOT NULL CHECK (stream_position >= 1),
    event_id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    data TEXT NOT NULL CHECK (json_valid(data)),
    metadata TEXT NOT NULL CHECK (json_valid(metadata)),
    recorded_at TEXT NOT NULL,
    UNIQUE (stream_id, stream_position)
  ) STRICT;
  CREATE INDEX events_compacted ON events (stream_id, stream_position) WHERE type = 'Compacted';
  CREATE TRIGGER events_refuse_update BEFORE UPDATE ON events
  BEGIN SELECT RAISE(ABORT, 'toolledger events are append-only: UPDATE is refused'); END;
  CREATE TRIGGER events_refuse_delete BEFORE DELETE ON events
  BEGIN SELECT RAISE(ABORT, 'toolledger events are append-only: DELETE is refused'); END;
  CREATE TABLE snapshots (
    stream_id TEXT NOT NULL,
    reducer_version INTEGER NOT NULL,
    stream_position INTEGER NOT NULL CHECK (stream_position >= 1),
    state TEXT NOT NULL CHECK (json_valid(state)),
    created_at TEXT NOT NULL,
    PRIMARY KEY (stream_id, reducer_version)
  ) STRICT;
  `,
  // toolledger 0.2.0, event catalogue 2 (conversations, calls, prompts, resources): the tables
  // are unchanged; the step is there so that 0.1.0 refuses these files (SCHEMA_TOO_NEW)
  // instead of failing on the first event it does not know.
  "-- event catalogue 2",
  // toolledger 0.3.0, event catalogue 3 (L1–L3): the leases of serving processes, and an index
  // that finds each conversation's latest opening or close without reading the log.
  `
  CREATE TABLE leases (
    holder TEXT PRIMARY KEY,
    hostname TEXT NOT NULL,
    pid INTEGER NOT NULL,
    pid_space TEXT,
    renewed_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
  ) STRICT;
  CREATE INDEX events_lifecycle ON events (stream_id, stream_position)
    WHERE type IN ('ConversationStarted', 'ConversationResumed', 'ConversationClosed');
  `,
  // toolledger 0.4.0, event catalogue 4 (V1: each upstream's era verdict): the tables are
  // unchanged; the step makes 0.3.0 refuse these files instead of failing on the new event.
  "-- event catalogue 4",
];

/** L3: each conversation's latest lifecycle event, when it opens (uses events_lifecycle). */
export const OPEN_CONVERSATIONS_SQL = `
  SELECT x.stream_id AS conversationId,
         json_extract(x.data, '$.registryStream') AS registryStream,
         (SELECT l.recorded_at FROM events AS l WHERE l.stream_id = x.stream_id
          ORDER BY l.stream_position DESC LIMIT 1) AS lastRecordedAt
  FROM (
    SELECT stream_id, type, data,
           row_number() OVER (PARTITION BY stream_id ORDER BY stream_position DESC) AS rn
    FROM events
    WHERE type IN ('ConversationStarted', 'ConversationResumed', 'ConversationClosed')
  ) AS x
  WHERE x.rn = 1 AND x.type <> 'ConversationClosed'
  ORDER BY x.stream_id`;

/** The file's schema version; a newer schema or a foreign file is refused. */
function schemaVersion(db: Database.Database, file: string): number {
  const appId = db.pragma("application_id", { simple: true }) as number;
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    throw new EventStoreError(
      "SCHEMA_TOO_NEW",
      `${file}: the event store has schema version ${version}, newer than ${SCHEMA_VERSION} that this toolledger supports; upgrade toolledger to open it`,
    );
  }
  if (appId !== APPLICATION_ID && (appId !== 0 || version !== 0 || hasTables(db))) {
    throw new EventStoreError(
      "NOT_A_DATABASE",
      `${file}: this SQLite file is not a toolledger event store (application_id ${appId}, user_version ${version}); point toolledger at a new file or at an existing event store`,
    );
  }
  return version;
}

/**
 * Brings the file to SCHEMA_VERSION in one IMMEDIATE transaction (two processes opening a
 * fresh file at once migrate it once). A newer schema or a foreign file is refused.
 */
export function migrate(db: Database.Database, file: string): void {
  // The first look reads the header and the schema table in one read transaction: another
  // process that creates the file between two separate reads must not make it look foreign.
  db.exec("BEGIN");
  let current: number;
  try {
    current = schemaVersion(db, file);
  } finally {
    db.exec("COMMIT");
  }
  if (current === SCHEMA_VERSION) return;
  db.exec("BEGIN IMMEDIATE");
  try {
    const from = schemaVersion(db, file);
    for (let v = from; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
    db.exec("COMMIT");
  } catch (error) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

/**
 * What a read-only connection checks instead of migrating: the file holds a schema this build
 * reads as it is (READABLE_SCHEMA_FROM to SCHEMA_VERSION). An empty SQLite file (no store
 * created in it yet) is STORE_NOT_FOUND; an older schema, which only a writer can migrate, is
 * refused with that advice.
 */
export function requireCurrentSchema(db: Database.Database, file: string): void {
  db.exec("BEGIN");
  let version: number;
  try {
    version = schemaVersion(db, file);
  } finally {
    db.exec("COMMIT");
  }
  if (version >= READABLE_SCHEMA_FROM && version <= SCHEMA_VERSION) return;
  if (version === 0) {
    throw new EventStoreError(
      "STORE_NOT_FOUND",
      `${file}: no event store in this file yet (an empty SQLite file); nothing was created, as it was opened read-only`,
    );
  }
  throw new EventStoreError(
    "STORE_READ_ONLY",
    `${file}: the event store has schema version ${version}, older than ${SCHEMA_VERSION}; open it once with a writer to migrate it`,
  );
}

function hasTables(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema LIMIT 1").get() !== undefined;
}
