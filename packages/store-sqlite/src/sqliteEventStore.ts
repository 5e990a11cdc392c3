import { existsSync } from "node:fs";
import { dirname } from "node:path";
import {
  type AppendResult,
  auditEnables,
  type EnableAudit,
  type EnableAuditFilter,
  EVENT_SCHEMA_VERSION,
  type EventRow,
  EventStoreError,
  type ExpectedVersion,
  eventFromRow,
  type LoadedState,
  matchesExpectedVersion,
  REDUCER_VERSION,
  type RowSource,
  type SerializedBatch,
  type SessionRow,
  SqlEventStore,
  type StateOptions,
  type StoredEvent,
} from "@toolledger/core";
import Database from "better-sqlite3";
import { EVENT_COLUMNS } from "./_eventRow.js";
import { loadSqlite } from "./_loadSqlite.js";
import { loadStateFromRows } from "./_loadState.js";
import { openReadOnlyStoreFile, plainName } from "./_readOnlyDatabase.js";
import { requireWritable } from "./_requireWritable.js";
import { CONVERSATION_TYPES_SQL, migrate } from "./_schema.js";
import { rowSource, toStoreError } from "./_storeError.js";
import { checkStoreFile, stampStoreFile } from "./checkStoreFile.js";

/**
 * `"full"` (default): `synchronous=FULL`, an acknowledged append survives a power loss.
 * `"normal"`: `synchronous=NORMAL`, it survives a crash of the process but the last commits
 * may be lost on a power loss (for tests and benchmarks).
 */
export type Durability = "full" | "normal";

export interface SqliteEventStoreOptions {
  /** Default `"full"`. */
  durability?: Durability;
  /** How long a writer waits for the write lock before `STORE_BUSY`. Default 5000 ms. */
  busyTimeoutMs?: number;
  /** Supplies `recordedAt` (E2: the clock is the store's, not the reducer's). */
  now?: () => Date;
  /**
   * Check the file before writing (`checkStoreFile`): a damaged file is refused with
   * STORE_CORRUPT and nothing is written; a clean close stamps the file so the next writer
   * need not read every page again. For writers (a serve, an import); readers skip it.
   */
  verify?: boolean;
  /**
   * Open an existing store without writing anything to the file or its folder (no schema
   * migration, no WAL switch, no snapshot cleanup), so a store in a read-only folder can be
   * read. Appends and snapshots throw STORE_READ_ONLY; a missing file is STORE_NOT_FOUND.
   */
  readOnly?: boolean;
}

/** What `settings()` reports. */
export interface StoreSettings {
  journalMode: string;
  /** `"FULL"` or `"NORMAL"` (see Durability). */
  synchronous: string;
  busyTimeoutMs: number;
  schemaVersion: number;
}

interface Prepared {
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
const INSERT_CHUNK = 16;

/**
 * The EventStore on one SQLite file (better-sqlite3, WAL). One stream per session; every
 * append is one `BEGIN IMMEDIATE` transaction; semantics identical to the in-memory store.
 */
export class SqliteEventStore extends SqlEventStore {
  /** The database file. */
  readonly file: string;
  /** Where the store is, for messages (the file; the PostgreSQL store gives its server and schema). */
  get location(): string {
    return this.file;
  }
  readonly #db: Database.Database;
  readonly #now: () => Date;
  readonly #s: Prepared;
  protected readonly rowSource: RowSource;
  /** Opened by a verifying writer: a clean close records the file as checked. */
  #stampOnClose = false;
  /** Opened with `readOnly`: appends and snapshots are refused before SQLite sees them. */
  #readOnly = false;

  private constructor(file: string, db: Database.Database, now: () => Date) {
    super();
    this.file = file;
    this.#db = db;
    this.#now = now;
    this.rowSource = rowSource(file);
    this.#s = {
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

  /**
   * Opens (creating when missing) an event store file, migrating its schema in one
   * transaction. Throws EventStoreError: NOT_A_DATABASE, SCHEMA_TOO_NEW, STORE_CORRUPT,
   * STORE_BUSY or IO_ERROR, each naming the file.
   */
  static open(file: string, options: SqliteEventStoreOptions = {}): SqliteEventStore {
    if (file !== ":memory:" && file !== "" && !existsSync(dirname(file))) {
      throw new EventStoreError(
        "IO_ERROR",
        `${file}: cannot open the event store: the directory ${dirname(file)} does not exist; create it first`,
      );
    }
    if (options.readOnly === true) return SqliteEventStore.#openReadOnly(file, options);
    if (file !== ":memory:" && file !== "") requireWritable(file);
    const verify = options.verify === true && file !== ":memory:" && file !== "";
    if (verify) {
      const check = checkStoreFile(file);
      if (!check.ok) {
        const shown = check.problems.slice(0, 3).join("; ");
        const more = check.problems.length > 3 ? ` (and ${check.problems.length - 3} more)` : "";
        throw new EventStoreError(
          "STORE_CORRUPT",
          `${file} is damaged: ${shown}${more}; nothing was written to it (PRAGMA quick_check, ${check.ms} ms)`,
        );
      }
    }
    let db: Database.Database | undefined;
    try {
      loadSqlite();
      db = new Database(plainName(file), { timeout: options.busyTimeoutMs ?? 5000 });
      db.pragma("journal_mode = WAL");
      db.pragma(`synchronous = ${options.durability === "normal" ? "NORMAL" : "FULL"}`);
      migrate(db, file);
      dropStaleSnapshots(db);
      const store = new SqliteEventStore(file, db, options.now ?? (() => new Date()));
      store.#stampOnClose = verify;
      return store;
    } catch (error) {
      db?.close();
      throw toStoreError(error, file, "opening the event store");
    }
  }

  static #openReadOnly(file: string, options: SqliteEventStoreOptions): SqliteEventStore {
    const db = openReadOnlyStoreFile(file, options);
    const store = new SqliteEventStore(file, db, options.now ?? (() => new Date()));
    store.#readOnly = true;
    return store;
  }

  /** Whether it was opened with `readOnly`. */
  get readOnly(): boolean {
    return this.#readOnly;
  }

  protected appendBatch(
    streamId: string,
    batch: SerializedBatch,
    expected: ExpectedVersion,
  ): AppendResult {
    if (this.#readOnly) throw this.#refuseWrite(`appending to ${JSON.stringify(streamId)}`);
    const s = this.#s;
    s.begin.run();
    try {
      const actual = s.streamVersion.get(streamId) ?? 0;
      const plain =
        batch.ids.length > 0 &&
        batch.repeatedId === null &&
        matchesExpectedVersion(expected, actual);
      // The common case inserts at once; a stored id then shows up as a unique violation.
      let result = plain ? null : this.#decide(streamId, batch, expected, actual);
      if (result === null) {
        try {
          result = this.#insert(streamId, batch, actual);
        } catch (error) {
          if (!isEventIdConflict(error)) throw error;
          // Roll the partial batch back: it is a retry or a duplicate, decided as in memory.
          s.rollback.run();
          s.begin.run();
          const now = s.streamVersion.get(streamId) ?? 0;
          result =
            this.#decide(streamId, batch, expected, now) ?? this.#insert(streamId, batch, now);
        }
      }
      s.commit.run();
      return result;
    } finally {
      if (this.#db.inTransaction) s.rollback.run();
    }
  }

  #insert(streamId: string, batch: SerializedBatch, actual: number): AppendResult {
    const recordedAt = this.#now().toISOString();
    const n = batch.ids.length;
    let first = 0;
    let last = 0;
    let i = 0;
    // Rows go in chunks of INSERT_CHUNK per statement (fewer native calls), the rest one by one.
    if (n >= INSERT_CHUNK) {
      const params = new Array<string | number>(INSERT_CHUNK * 8);
      for (; i + INSERT_CHUNK <= n; i += INSERT_CHUNK) {
        for (let k = 0; k < INSERT_CHUNK; k++) {
          const o = k * 8;
          const j = i + k;
          params[o] = streamId;
          params[o + 1] = actual + j + 1;
          params[o + 2] = batch.ids[j]!;
          params[o + 3] = batch.types[j]!;
          // Decoding accepts only this schema version (E2), so it is every stored event's `v`.
          params[o + 4] = EVENT_SCHEMA_VERSION;
          params[o + 5] = batch.data[j]!;
          params[o + 6] = batch.metadata[j]!;
          params[o + 7] = recordedAt;
        }
        last = Number(this.#s.insertChunk.run(params).lastInsertRowid);
        if (i === 0) first = last - INSERT_CHUNK + 1;
      }
    }
    const insert = this.#s.insert;
    for (; i < n; i++) {
      const info = insert.run(
        streamId,
        actual + i + 1,
        batch.ids[i]!,
        batch.types[i]!,
        EVENT_SCHEMA_VERSION,
        batch.data[i]!,
        batch.metadata[i]!,
        recordedAt,
      );
      last = Number(info.lastInsertRowid);
      if (i === 0) first = last;
    }
    return {
      ok: true,
      nextExpectedVersion: actual + n,
      firstGlobalPosition: first,
      lastGlobalPosition: last,
    };
  }

  /**
   * Checks in the in-memory store's order (idempotent retry, version, empty batch, repeated
   * id); null when the batch is to be inserted.
   */
  #decide(
    streamId: string,
    batch: SerializedBatch,
    expected: ExpectedVersion,
    actual: number,
  ): AppendResult | null {
    const retried = this.#checkRetry(streamId, batch);
    if (retried) return retried;
    if (!matchesExpectedVersion(expected, actual)) {
      return { ok: false, error: { code: "VERSION_CONFLICT", streamId, expected, actual } };
    }
    if (batch.ids.length === 0) {
      const head = this.#s.head.get() ?? 0;
      return {
        ok: true,
        nextExpectedVersion: actual,
        firstGlobalPosition: head,
        lastGlobalPosition: head,
      };
    }
    if (batch.repeatedId !== null) {
      return {
        ok: false,
        error: {
          code: "DUPLICATE_EVENT",
          eventId: batch.repeatedId,
          message: `event id ${batch.repeatedId} appears twice in one batch`,
        },
      };
    }
    return null;
  }

  /**
   * A retried batch (every id stored in this stream with the same content, at consecutive
   * positions in batch order) returns the original result; an id reused otherwise is
   * DUPLICATE_EVENT. Null for a fresh batch.
   */
  #checkRetry(streamId: string, batch: SerializedBatch): AppendResult | null {
    const found: { stream_position: number; global_position: number }[] = [];
    let firstFound: string | null = null;
    for (let i = 0; i < batch.ids.length; i++) {
      const id = batch.ids[i]!;
      const prior = this.#s.byEventId.get(id);
      if (!prior) continue;
      if (
        prior.stream_id !== streamId ||
        prior.data !== batch.data[i] ||
        prior.metadata !== batch.metadata[i]
      ) {
        return duplicate(id, `event id ${id} is already stored with different content`);
      }
      firstFound ??= id;
      found.push(prior);
    }
    if (found.length === 0) return null;
    if (found.length < batch.ids.length) {
      return duplicate(
        firstFound!,
        "the batch mixes stored and new event ids; retry the original batch exactly",
      );
    }
    for (let i = 1; i < found.length; i++) {
      if (found[i]!.stream_position !== found[i - 1]!.stream_position + 1) {
        return duplicate(
          batch.ids[i]!,
          "the batch's event ids are stored, but not as one batch in this order; retry the original batch exactly",
        );
      }
    }
    return {
      ok: true,
      nextExpectedVersion: found[found.length - 1]!.stream_position,
      firstGlobalPosition: found[0]!.global_position,
      lastGlobalPosition: found[found.length - 1]!.global_position,
    };
  }

  protected selectStream(streamId: string, from: number, maxCount: number | null): EventRow[] {
    return this.#s.readStream.all(streamId, from, maxCount ?? -1);
  }

  protected selectAll(after: number, limit: number): EventRow[] {
    return this.#s.readAll.all(after, limit);
  }

  protected selectVersion(streamId: string): number {
    return this.#s.streamVersion.get(streamId) ?? 0;
  }

  protected selectSessions(): SessionRow[] {
    return this.#db
      .prepare<[], SessionRow>(
        `SELECT s.stream_id, s.n, f.global_position AS first_global, l.global_position AS last_global,
                f.recorded_at AS first_at, l.recorded_at AS last_at
         FROM (SELECT stream_id, max(stream_position) AS n FROM events GROUP BY stream_id) AS s
         JOIN events AS f ON f.stream_id = s.stream_id AND f.stream_position = 1
         JOIN events AS l ON l.stream_id = s.stream_id AND l.stream_position = s.n
         ORDER BY f.global_position`,
      )
      .all();
  }

  protected foldState(sessionId: string, options: StateOptions): LoadedState {
    return this.#db.transaction(() =>
      loadStateFromRows(this.#db, this.rowSource, sessionId, options),
    )();
  }

  protected insertSnapshot(sessionId: string, loaded: LoadedState): void {
    if (this.#readOnly)
      throw this.#refuseWrite(`saving a snapshot of ${JSON.stringify(sessionId)}`);
    this.#db
      .prepare(
        `INSERT INTO snapshots (stream_id, reducer_version, stream_position, state, created_at)
         VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (stream_id, reducer_version) DO UPDATE SET
           stream_position = excluded.stream_position, state = excluded.state, created_at = excluded.created_at
         WHERE excluded.stream_position > snapshots.stream_position`,
      )
      .run(
        sessionId,
        REDUCER_VERSION,
        loaded.version,
        JSON.stringify(loaded.state),
        this.#now().toISOString(),
      );
  }

  #refuseWrite(doing: string): EventStoreError {
    return new EventStoreError(
      "STORE_READ_ONLY",
      `${this.file}: ${doing} refused: the store was opened read-only; open it without readOnly to write`,
    );
  }

  protected closeConnection(): void {
    this.#db.close();
    if (this.#stampOnClose) stampStoreFile(this.file);
  }

  protected storeFailure(error: unknown, doing: string): unknown {
    return toStoreError(error, this.file, doing);
  }

  /** The enable history (D6) of one session or all, filtered; see `auditEnables`. */
  async auditEnables(filter: EnableAuditFilter = {}): Promise<EnableAudit> {
    this.assertOpen();
    const where = `type IN ${CONVERSATION_TYPES_SQL}`;
    const sql =
      filter.sessionId === undefined
        ? `SELECT ${EVENT_COLUMNS} FROM events WHERE ${where} ORDER BY global_position`
        : `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND ${where} ORDER BY stream_position`;
    const params = filter.sessionId === undefined ? [] : [filter.sessionId];
    const file = this.file;
    const source = this.rowSource;
    const db = this.#db;
    // Streamed in one read transaction: memory grows with the requests, not with the log.
    function* events(): Generator<StoredEvent> {
      for (const row of db.prepare<unknown[], EventRow>(sql).iterate(...params)) {
        yield eventFromRow(row, source);
      }
    }
    try {
      return db.transaction(() => auditEnables(events(), filter))();
    } catch (error) {
      throw toStoreError(error, file, "reading the enable history");
    }
  }

  /** The connection's effective settings, read back from SQLite (for diagnostics). */
  settings(): StoreSettings {
    this.assertOpen();
    try {
      const synchronous = this.#db.pragma("synchronous", { simple: true }) as number;
      return {
        journalMode: String(this.#db.pragma("journal_mode", { simple: true })),
        synchronous:
          (["OFF", "NORMAL", "FULL", "EXTRA"] as const)[synchronous] ?? String(synchronous),
        busyTimeoutMs: this.#db.pragma("busy_timeout", { simple: true }) as number,
        schemaVersion: this.#db.pragma("user_version", { simple: true }) as number,
      };
    } catch (error) {
      throw toStoreError(error, this.file, "reading the settings");
    }
  }

  /** `PRAGMA integrity_check`: `["ok"]` for a sound file, otherwise SQLite's findings. */
  async checkIntegrity(): Promise<string[]> {
    this.assertOpen();
    try {
      const rows = this.#db.pragma("integrity_check") as Record<string, unknown>[];
      return rows.map((r) => String(Object.values(r)[0]));
    } catch (error) {
      throw toStoreError(error, this.file, "checking integrity");
    }
  }
}

/** Opens an event store file; see `SqliteEventStore.open`. */
export function openSqliteEventStore(
  file: string,
  options: SqliteEventStoreOptions = {},
): SqliteEventStore {
  return SqliteEventStore.open(file, options);
}

function duplicate(eventId: string, message: string): AppendResult {
  return { ok: false, error: { code: "DUPLICATE_EVENT", eventId, message } };
}

function isEventIdConflict(error: unknown): boolean {
  return (
    error instanceof Database.SqliteError &&
    error.code === "SQLITE_CONSTRAINT_UNIQUE" &&
    error.message.includes("events.event_id")
  );
}

/** Snapshots of another reducer version are a stale cache: dropped at open. */
function dropStaleSnapshots(db: Database.Database): void {
  const stale = db
    .prepare("SELECT 1 FROM snapshots WHERE reducer_version <> ? LIMIT 1")
    .get(REDUCER_VERSION);
  if (stale === undefined) return;
  db.prepare("DELETE FROM snapshots WHERE reducer_version <> ?").run(REDUCER_VERSION);
}
