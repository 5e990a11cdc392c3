import { existsSync } from "node:fs";
import { dirname } from "node:path";
import {
  type AppendResult,
  auditEnables,
  type EnableAudit,
  type EnableAuditFilter,
  type EventRow,
  EventStoreError,
  type ExpectedVersion,
  eventFromRow,
  type Lease,
  type LeaseReading,
  type LeaseRenewal,
  type LoadedState,
  type OpenConversation,
  REDUCER_VERSION,
  type RowSource,
  type SerializedBatch,
  type SessionRow,
  SqlEventStore,
  type StateOptions,
  type StoredEvent,
} from "@toolledger/core";
import Database from "better-sqlite3";
import { checkStoreFile, stampStoreFile } from "../database/checkStoreFile.js";
import { EVENT_COLUMNS } from "../database/eventRow.js";
import { loadSqlite } from "../database/loadSqlite.js";
import { openReadOnlyStoreFile, plainName } from "../database/readOnlyDatabase.js";
import { requireWritable } from "../database/requireWritable.js";
import { CONVERSATION_TYPES_SQL, migrate, OPEN_CONVERSATIONS_SQL } from "../database/schema.js";
import { rowSource, toStoreError } from "../database/storeError.js";
import { type AppendTarget, appendBatch } from "./appendBatch.js";
import { loadStateFromRows } from "./loadStateFromRows.js";
import { type Prepared, prepareStatements } from "./prepareStatements.js";

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
  readonly #append: AppendTarget;
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
    this.#s = prepareStatements(db);
    this.#append = { db, statements: this.#s, now };
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
    return appendBatch(this.#append, streamId, batch, expected);
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

  protected upsertLease(renewal: LeaseRenewal): Lease {
    if (this.#readOnly)
      throw this.#refuseWrite(`renewing the lease of ${JSON.stringify(renewal.holder)}`);
    const now = this.#now();
    const lease: Lease = {
      holder: renewal.holder,
      hostname: renewal.hostname,
      pid: renewal.pid,
      pidSpace: renewal.pidSpace,
      renewedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + renewal.ttlMs).toISOString(),
    };
    this.#db
      .prepare(
        `INSERT INTO leases (holder, hostname, pid, pid_space, renewed_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (holder) DO UPDATE SET hostname = excluded.hostname, pid = excluded.pid,
           pid_space = excluded.pid_space, renewed_at = excluded.renewed_at,
           expires_at = excluded.expires_at`,
      )
      .run(
        lease.holder,
        lease.hostname,
        lease.pid,
        lease.pidSpace,
        lease.renewedAt,
        lease.expiresAt,
      );
    return lease;
  }

  protected deleteLease(holder: string): void {
    if (this.#readOnly) throw this.#refuseWrite(`releasing the lease of ${JSON.stringify(holder)}`);
    this.#db.prepare("DELETE FROM leases WHERE holder = ?").run(holder);
  }

  protected selectLeases(holders: readonly string[]): LeaseReading {
    const now = this.#now().toISOString();
    if (holders.length === 0) return { now, leases: [] };
    const rows = this.#db
      .prepare<
        string[],
        {
          holder: string;
          hostname: string;
          pid: number;
          pid_space: string | null;
          renewed_at: string;
          expires_at: string;
        }
      >(
        `SELECT holder, hostname, pid, pid_space, renewed_at, expires_at FROM leases
         WHERE holder IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(holders));
    return {
      now,
      leases: rows.map((r) => ({
        holder: r.holder,
        hostname: r.hostname,
        pid: r.pid,
        pidSpace: r.pid_space,
        renewedAt: r.renewed_at,
        expiresAt: r.expires_at,
      })),
    };
  }

  protected selectOpenConversations(): OpenConversation[] {
    return this.#db.prepare<[], OpenConversation>(OPEN_CONVERSATIONS_SQL).all();
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

/** Snapshots of another reducer version are a stale cache: dropped at open. */
function dropStaleSnapshots(db: Database.Database): void {
  const stale = db
    .prepare("SELECT 1 FROM snapshots WHERE reducer_version <> ? LIMIT 1")
    .get(REDUCER_VERSION);
  if (stale === undefined) return;
  db.prepare("DELETE FROM snapshots WHERE reducer_version <> ?").run(REDUCER_VERSION);
}
