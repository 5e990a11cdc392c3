import {
  type AppendResult,
  auditEnablesAsync,
  type EnableAudit,
  type EnableAuditFilter,
  EVENT_SCHEMA_VERSION,
  type EventRow,
  EventStoreError,
  type ExpectedVersion,
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
import { type Connection, connect } from "../database/connection.js";
import { migrate } from "../database/migrate.js";
import { connectionSecrets, redactConnectionString } from "../database/redactConnectionString.js";
import { channelOf, quoteIdent, SCHEMA_NAME } from "../database/schema.js";
import {
  type StoreLocation,
  storeError,
  storeLocation,
  toStoreError,
} from "../database/storeError.js";
import { AppendNotifications } from "./appendNotifications.js";
import { enableHistoryEvents } from "./enableHistory.js";
import { type AppendRow, expectedText, sessionsQuery, statements } from "./eventStatements.js";
import { deleteLease, selectLeases, selectOpenConversations, upsertLease } from "./leaseQueries.js";
import { loadStateFromRows } from "./loadStateFromRows.js";
import { readServerSettings } from "./serverSettings.js";
import { type PostgresEventStoreOptions, splitSchemaParam } from "./storeOptions.js";

export type { Durability, PostgresEventStoreOptions } from "./storeOptions.js";

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
    return this.#connection.query<SessionRow>(sessionsQuery(this.schema));
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
    const lease = await upsertLease(this.#connection.query, this.schema, this.#now, renewal);
    if (!lease) throw storeError("STORE_CORRUPT", this.#where, "the lease upsert returned no row");
    return lease;
  }

  protected deleteLease(holder: string): Promise<void> {
    return deleteLease(this.#connection.query, this.schema, holder);
  }

  protected selectLeases(holders: readonly string[]): Promise<LeaseReading> {
    return selectLeases(this.#connection.query, this.schema, this.#now, holders);
  }

  protected selectOpenConversations(): Promise<OpenConversation[]> {
    return selectOpenConversations(this.#connection.query, this.schema);
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
    const events = enableHistoryEvents(
      this.#connection.query,
      this.schema,
      this.#where,
      filter.sessionId,
    );
    try {
      return await auditEnablesAsync(events, filter);
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
      return await readServerSettings(this.#connection.query);
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
