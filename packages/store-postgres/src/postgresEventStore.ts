import {
  type AppendResult,
  auditEnablesAsync,
  type EnableAudit,
  type EnableAuditFilter,
  EVENT_SCHEMA_VERSION,
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
  type SerializedBatch,
  type SessionRow,
  SqlEventStore,
  type StateOptions,
  type StoredEvent,
  type SubscribeOptions,
  subscribe,
} from "@toolledger/core";
import { AppendNotifications } from "./_appendNotifications.js";
import { type Connection, connect } from "./_connection.js";
import { EVENT_COLUMNS } from "./_eventRow.js";
import { loadStateFromRows } from "./_loadStateFromRows.js";
import { migrate } from "./_migrate.js";
import { CONVERSATION_TYPES_SQL, channelOf, quoteIdent, SCHEMA_NAME } from "./_schema.js";
import { type StoreLocation, storeError, storeLocation, toStoreError } from "./_storeError.js";
import { connectionSecrets, redactConnectionString } from "./redactConnectionString.js";

/**
 * `"full"` (default): `synchronous_commit=on`, an acknowledged append is on the server's disk.
 * `"normal"`: `synchronous_commit=off`, it survives a crash of any client, but a crash of the
 * server may lose the last commits (never a partial batch, never reordered).
 */
export type Durability = "full" | "normal";

export interface PostgresEventStoreOptions {
  /** The schema that holds the store's tables. Default: the URL's `schema` parameter, else `"toolledger"`. */
  schema?: string;
  /** Create the schema and tables when missing (default). `false`: STORE_NOT_FOUND instead. */
  create?: boolean;
  /** Default `"full"`. */
  durability?: Durability;
  /** How long an append waits for the log's head lock before `STORE_BUSY`. Default 5000 ms. */
  lockTimeoutMs?: number;
  /** Connections in the pool. Default 4. */
  poolSize?: number;
  /** How long to wait for the server when connecting. Default 10,000 ms. */
  connectTimeoutMs?: number;
  /** Supplies `recordedAt`; default: the server's clock (one clock for every host). */
  now?: () => Date;
}

interface AppendRow {
  outcome: "ok" | "conflict" | "duplicate";
  next_expected: number | null;
  first_global: number | null;
  last_global: number | null;
  actual: number | null;
  event_id: string | null;
  message: string | null;
}

/** Rows per page when a method reads more than one page (audit, listing). */
const PAGE = 5000;

/**
 * The EventStore on PostgreSQL: many processes on many hosts append to one log. Global
 * positions are assigned under one row lock held until commit, so they become visible in
 * order and a reader that polls "after N" never skips an event; subscriptions wake on
 * LISTEN/NOTIFY and read the table. Semantics identical to the in-memory and SQLite stores.
 */
export class PostgresEventStore extends SqlEventStore {
  /** The server (password redacted) and schema, for messages. */
  readonly location: string;
  readonly schema: string;
  readonly #where: StoreLocation;
  readonly #connection: Connection;
  readonly #now: (() => Date) | undefined;
  readonly #sql: ReturnType<typeof statements>;
  readonly #notifications: AppendNotifications;

  private constructor(
    where: StoreLocation,
    schema: string,
    connection: Connection,
    now: (() => Date) | undefined,
  ) {
    super();
    this.location = where.label;
    this.schema = schema;
    this.#where = where;
    this.#connection = connection;
    this.#now = now;
    this.#sql = statements(schema);
    this.#notifications = new AppendNotifications(connection, channelOf(schema));
  }

  /**
   * Connects and migrates the schema in one transaction (creating it unless `create: false`).
   * Throws EventStoreError: STORE_UNAVAILABLE, STORE_NOT_FOUND, NOT_A_DATABASE,
   * SCHEMA_TOO_NEW or IO_ERROR, naming the server without its password.
   */
  static async open(
    url: string,
    options: PostgresEventStoreOptions = {},
  ): Promise<PostgresEventStore> {
    const { url: serverUrl, schema: fromUrl } = splitSchemaParam(url);
    const schema = options.schema ?? fromUrl ?? "toolledger";
    const label = `${redactConnectionString(serverUrl)} (schema ${schema})`;
    const where = storeLocation(label, connectionSecrets(url));
    if (!SCHEMA_NAME.test(schema)) {
      throw new EventStoreError(
        "IO_ERROR",
        `${label}: the schema name must be a plain identifier of at most 52 characters (letters, digits, _)`,
      );
    }
    const connection = connect({
      url: serverUrl,
      max: Math.max(1, options.poolSize ?? 4),
      lockTimeoutMs: options.lockTimeoutMs ?? 5000,
      synchronousCommit: options.durability !== "normal",
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    });
    try {
      await migrate(connection, schema, where, options.create ?? true);
    } catch (error) {
      await connection.end().catch(() => {});
      throw toStoreError(error, where, "opening the event store");
    }
    return new PostgresEventStore(where, schema, connection, options.now);
  }

  protected async appendBatch(
    streamId: string,
    batch: SerializedBatch,
    expected: ExpectedVersion,
  ): Promise<AppendResult> {
    const [row] = await this.#connection.query<AppendRow>(
      this.#sql.append,
      [
        streamId,
        expectedText(expected),
        batch.ids,
        batch.types,
        batch.data,
        batch.metadata,
        EVENT_SCHEMA_VERSION,
        batch.repeatedId,
        this.#now ? this.#now().toISOString() : null,
      ],
      "toolledger_append",
    );
    if (!row) throw storeError("STORE_CORRUPT", this.#where, "append_events returned no row");
    if (row.outcome === "ok") {
      return {
        ok: true,
        nextExpectedVersion: row.next_expected!,
        firstGlobalPosition: row.first_global!,
        lastGlobalPosition: row.last_global!,
      };
    }
    if (row.outcome === "conflict") {
      return {
        ok: false,
        error: { code: "VERSION_CONFLICT", streamId, expected, actual: row.actual! },
      };
    }
    return {
      ok: false,
      error: { code: "DUPLICATE_EVENT", eventId: row.event_id!, message: row.message! },
    };
  }

  protected selectStream(
    streamId: string,
    from: number,
    maxCount: number | null,
  ): Promise<EventRow[]> {
    return this.#connection.query<EventRow>(
      this.#sql.readStream,
      [streamId, from, maxCount],
      "toolledger_read_stream",
    );
  }

  protected selectAll(after: number, limit: number): Promise<EventRow[]> {
    return this.#connection.query<EventRow>(
      this.#sql.readAll,
      [after, limit],
      "toolledger_read_all",
    );
  }

  protected async selectVersion(streamId: string): Promise<number> {
    const [row] = await this.#connection.query<{ version: number }>(
      this.#sql.streamVersion,
      [streamId],
      "toolledger_stream_version",
    );
    return row?.version ?? 0;
  }

  protected selectSessions(): Promise<SessionRow[]> {
    const s = quoteIdent(this.schema);
    return this.#connection.query<SessionRow>(
      `SELECT t.stream_id, t.n, f.global_position AS first_global, l.global_position AS last_global,
              ${isoTime("f.recorded_at")} AS first_at, ${isoTime("l.recorded_at")} AS last_at
       FROM (SELECT stream_id, max(stream_position) AS n FROM ${s}.events GROUP BY stream_id) AS t
       JOIN ${s}.events AS f ON f.stream_id = t.stream_id AND f.stream_position = 1
       JOIN ${s}.events AS l ON l.stream_id = t.stream_id AND l.stream_position = t.n
       ORDER BY f.global_position`,
    );
  }

  protected get rowSource(): StoreLocation {
    return this.#where;
  }

  protected foldState(sessionId: string, options: StateOptions): Promise<LoadedState> {
    return this.#connection.transaction(
      (query) => loadStateFromRows(query, this.schema, this.#where, sessionId, options),
      "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
    );
  }

  protected async insertSnapshot(sessionId: string, loaded: LoadedState): Promise<void> {
    const s = quoteIdent(this.schema);
    await this.#connection.query(
      `INSERT INTO ${s}.snapshots (stream_id, reducer_version, stream_position, state, created_at)
       VALUES ($1, $2, $3, $4::json, $5)
       ON CONFLICT (stream_id, reducer_version) DO UPDATE SET
         stream_position = excluded.stream_position, state = excluded.state, created_at = excluded.created_at
       WHERE excluded.stream_position > snapshots.stream_position`,
      [
        sessionId,
        REDUCER_VERSION,
        loaded.version,
        JSON.stringify(loaded.state),
        (this.#now?.() ?? new Date()).toISOString(),
      ],
    );
  }

  protected async upsertLease(renewal: LeaseRenewal): Promise<Lease> {
    const s = quoteIdent(this.schema);
    // The server's clock, so every host compares expiries on one clock (a test's own clock wins).
    const [row] = await this.#connection.query<LeaseRow>(
      `WITH t AS (SELECT coalesce($5::timestamptz, clock_timestamp()) AS now)
       INSERT INTO ${s}.leases (holder, hostname, pid, pid_space, renewed_at, expires_at)
       SELECT $1, $2, $3, $4, t.now, t.now + make_interval(secs => $6::double precision / 1000) FROM t
       ON CONFLICT (holder) DO UPDATE SET hostname = excluded.hostname, pid = excluded.pid,
         pid_space = excluded.pid_space, renewed_at = excluded.renewed_at,
         expires_at = excluded.expires_at
       RETURNING ${LEASE_COLUMNS}`,
      [
        renewal.holder,
        renewal.hostname,
        renewal.pid,
        renewal.pidSpace,
        this.#now ? this.#now().toISOString() : null,
        renewal.ttlMs,
      ],
    );
    if (!row) throw storeError("STORE_CORRUPT", this.#where, "the lease upsert returned no row");
    return leaseFromRow(row);
  }

  protected async deleteLease(holder: string): Promise<void> {
    const s = quoteIdent(this.schema);
    await this.#connection.query(`DELETE FROM ${s}.leases WHERE holder = $1`, [holder]);
  }

  protected async selectLeases(holders: readonly string[]): Promise<LeaseReading> {
    const s = quoteIdent(this.schema);
    const rows = await this.#connection.query<LeaseRow & { now: string }>(
      `SELECT ${LEASE_COLUMNS}, ${isoTime("coalesce($2::timestamptz, clock_timestamp())")} AS now
       FROM (SELECT 1) AS one LEFT JOIN ${s}.leases ON holder = ANY($1::text[])`,
      [holders, this.#now ? this.#now().toISOString() : null],
    );
    const now = rows[0]?.now ?? (this.#now?.() ?? new Date()).toISOString();
    return { now, leases: rows.filter((r) => r.holder !== null).map(leaseFromRow) };
  }

  protected selectOpenConversations(): Promise<OpenConversation[]> {
    const s = quoteIdent(this.schema);
    return this.#connection.query<OpenConversation>(
      `SELECT x.stream_id AS "conversationId",
              x.data->>'registryStream' AS "registryStream",
              (SELECT ${isoTime("l.recorded_at")} FROM ${s}.events AS l WHERE l.stream_id = x.stream_id
               ORDER BY l.stream_position DESC LIMIT 1) AS "lastRecordedAt"
       FROM (
         SELECT stream_id, type, data,
                row_number() OVER (PARTITION BY stream_id ORDER BY stream_position DESC) AS rn
         FROM ${s}.events
         WHERE type IN ('ConversationStarted', 'ConversationResumed', 'ConversationClosed')
       ) AS x
       WHERE x.rn = 1 AND x.type <> 'ConversationClosed'
       ORDER BY x.stream_id`,
    );
  }

  protected async closeConnection(): Promise<void> {
    await this.#notifications.close();
    await this.#connection.end();
  }

  protected storeFailure(error: unknown, doing: string): EventStoreError {
    return toStoreError(error, this.#where, doing);
  }

  /** The enable history (D6) of one session or all, filtered; see `auditEnables`. */
  async auditEnables(filter: EnableAuditFilter = {}): Promise<EnableAudit> {
    this.assertOpen();
    const s = quoteIdent(this.schema);
    const where = `type IN ${CONVERSATION_TYPES_SQL}`;
    const one = filter.sessionId;
    const query = this.#connection.query;
    const location = this.#where;
    // Pages by position: memory grows with the requests, not with the log. Positions become
    // visible in order, so pages read outside one transaction still form one prefix of the log.
    async function* events(): AsyncGenerator<StoredEvent> {
      let after = 0;
      for (;;) {
        const rows =
          one === undefined
            ? await query<EventRow>(
                `SELECT ${EVENT_COLUMNS} FROM ${s}.events WHERE ${where} AND global_position > $1 ORDER BY global_position LIMIT ${PAGE}`,
                [after],
              )
            : await query<EventRow>(
                `SELECT ${EVENT_COLUMNS} FROM ${s}.events WHERE stream_id = $2 AND ${where} AND stream_position > $1 ORDER BY stream_position LIMIT ${PAGE}`,
                [after, one],
              );
        for (const row of rows) yield eventFromRow(row, location);
        if (rows.length < PAGE) return;
        const last = rows[rows.length - 1]!;
        after = one === undefined ? last.global_position : last.stream_position;
      }
    }
    try {
      return await auditEnablesAsync(events(), filter);
    } catch (error) {
      if (error instanceof RangeError) throw error;
      throw toStoreError(error, this.#where, "reading the enable history");
    }
  }

  /**
   * Follows the log as other processes append to it: catch-up reads, woken by LISTEN/NOTIFY
   * (one listening connection per store), with a read every `maxIdleMs` (default 5000) as a
   * safety net. See the core's `subscribe`.
   */
  override subscribe(
    options: SubscribeOptions = {},
  ): AsyncGenerator<StoredEvent[], void, undefined> {
    return subscribe(this, { maxIdleMs: 5000, ...options }, this.#notifications);
  }

  /** The server's settings that decide durability and ordering, read back (for diagnostics). */
  async settings(): Promise<{
    serverVersion: string;
    synchronousCommit: string;
    fsync: string;
    lockTimeout: string;
    transactionIsolation: string;
  }> {
    this.assertOpen();
    try {
      const [row] = await this.#connection.query<{
        server_version: string;
        synchronous_commit: string;
        fsync: string;
        lock_timeout: string;
        transaction_isolation: string;
      }>(
        "SELECT current_setting('server_version') AS server_version, current_setting('synchronous_commit') AS synchronous_commit, current_setting('fsync') AS fsync, current_setting('lock_timeout') AS lock_timeout, current_setting('transaction_isolation') AS transaction_isolation",
      );
      return {
        serverVersion: row!.server_version,
        synchronousCommit: row!.synchronous_commit,
        fsync: row!.fsync,
        lockTimeout: row!.lock_timeout,
        transactionIsolation: row!.transaction_isolation,
      };
    } catch (error) {
      throw toStoreError(error, this.#where, "reading the settings");
    }
  }
}

/** Opens an event store on a PostgreSQL server; see `PostgresEventStore.open`. */
export function openPostgresEventStore(
  url: string,
  options: PostgresEventStoreOptions = {},
): Promise<PostgresEventStore> {
  return PostgresEventStore.open(url, options);
}

function statements(schema: string) {
  const s = quoteIdent(schema);
  return {
    append: `SELECT * FROM ${s}.append_events($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    readStream: `SELECT ${EVENT_COLUMNS} FROM ${s}.events WHERE stream_id = $1 AND stream_position >= $2 ORDER BY stream_position LIMIT $3`,
    readAll: `SELECT ${EVENT_COLUMNS} FROM ${s}.events WHERE global_position > $1 ORDER BY global_position LIMIT $2`,
    streamVersion: `SELECT coalesce(max(stream_position), 0) AS version FROM ${s}.events WHERE stream_id = $1`,
  };
}

/** The expected version as the append function reads it; anything unknown never matches. */
function expectedText(expected: ExpectedVersion): string {
  if (expected === "any" || expected === "no_stream" || expected === "stream_exists") {
    return expected;
  }
  return typeof expected === "number" && Number.isSafeInteger(expected) && expected >= 0
    ? String(expected)
    : "never";
}

/** A `schema` query parameter picks the store's schema; the driver never sees it. */
function splitSchemaParam(url: string): { url: string; schema: string | undefined } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, schema: undefined };
  }
  const schema = parsed.searchParams.get("schema");
  if (schema === null) return { url, schema: undefined };
  parsed.searchParams.delete("schema");
  return { url: parsed.href, schema };
}

interface LeaseRow {
  holder: string;
  hostname: string;
  pid: number;
  pid_space: string | null;
  renewed_at: string;
  expires_at: string;
}

const LEASE_COLUMNS = `holder, hostname, pid, pid_space, ${isoTime("renewed_at")} AS renewed_at, ${isoTime("expires_at")} AS expires_at`;

function leaseFromRow(row: LeaseRow): Lease {
  return {
    holder: row.holder,
    hostname: row.hostname,
    pid: row.pid,
    pidSpace: row.pid_space,
    renewedAt: row.renewed_at,
    expiresAt: row.expires_at,
  };
}

function isoTime(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
