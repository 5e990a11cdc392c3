import type { EnableAudit, EnableAuditFilter } from "../audit/auditEnables.js";
import type { LoadedState } from "../fold/snapshotFold.js";
import type { StateOptions } from "../fold/state.js";
import { type EventRow, eventsFromRows, type RowSource } from "./eventFromRow.js";
import {
  type AppendResult,
  EventStoreError,
  type EventToAppend,
  type ExpectedVersion,
  type ReadAllOptions,
  type ReadStreamOptions,
  type StoredEvent,
} from "./eventStore.js";
import type { Lease, LeaseReading, LeaseRenewal, OpenConversation } from "./leases.js";
import {
  invalidEvent,
  isStorableId,
  type SerializedBatch,
  serializeBatch,
} from "./serializeBatch.js";
import type { SessionStore, SessionSummary } from "./sessionStore.js";
import { type SubscribeOptions, subscribe } from "./subscribe.js";

type Sync<T> = T | Promise<T>;

/** A row of a SQL store's session listing: a stream with its first and last event. */
export interface SessionRow {
  stream_id: string;
  n: number;
  first_global: number;
  last_global: number;
  first_at: string;
  last_at: string;
}

/**
 * What the SQL stores (SQLite, PostgreSQL) share, so their semantics agree by construction:
 * every call checks the store is open, validates and serializes a batch before the driver
 * sees it (E1/E2), applies the read options' defaults, maps driver failures to the store's
 * errors naming what was being done, and decodes rows with the core's schemas. A store
 * supplies the driver parts: its SQL, its transactions and its error mapping.
 */
export abstract class SqlEventStore implements SessionStore {
  /** For messages: the file, or the server (password redacted) and schema. */
  abstract readonly location: string;
  /** Names the store in the errors of rows that cannot be read back. */
  protected abstract readonly rowSource: RowSource;
  #closed = false;

  /** Appends a validated batch, deciding the outcome as the in-memory store does. */
  protected abstract appendBatch(
    streamId: string,
    batch: SerializedBatch,
    expected: ExpectedVersion,
  ): Sync<AppendResult>;
  /** Rows of a stream from position `from`, at most `maxCount` (null: all). */
  protected abstract selectStream(
    streamId: string,
    from: number,
    maxCount: number | null,
  ): Sync<EventRow[]>;
  /** A page of rows after a global position. */
  protected abstract selectAll(after: number, limit: number): Sync<EventRow[]>;
  /** The stream's last position, 0 when it has none. */
  protected abstract selectVersion(streamId: string): Sync<number>;
  /** Every stream with its first and last event, in order of creation. */
  protected abstract selectSessions(): Sync<SessionRow[]>;
  /** D7 in one read transaction (see the core's `SnapshotFold`). */
  protected abstract foldState(sessionId: string, options: StateOptions): Sync<LoadedState>;
  /** Stores the loaded state as the stream's snapshot unless a newer one is stored. */
  protected abstract insertSnapshot(sessionId: string, loaded: LoadedState): Sync<void>;
  protected abstract closeConnection(): Sync<void>;
  /** L3: inserts or renews a lease; returns it as stored. */
  protected abstract upsertLease(renewal: LeaseRenewal): Sync<Lease>;
  protected abstract deleteLease(holder: string): Sync<void>;
  protected abstract selectLeases(holders: readonly string[]): Sync<LeaseReading>;
  /** L3: see `openConversations`: the latest lifecycle event of each stream, when it opens. */
  protected abstract selectOpenConversations(): Sync<OpenConversation[]>;
  /** Maps a driver failure to the store's error (an EventStoreError passes through). */
  protected abstract storeFailure(error: unknown, doing: string): unknown;
  /** The enable history (D6) of one session or all, filtered; see `auditEnables`. */
  abstract auditEnables(filter?: EnableAuditFilter): Promise<EnableAudit>;

  async append(
    streamId: string,
    events: readonly EventToAppend[],
    expected: ExpectedVersion = "any",
  ): Promise<AppendResult> {
    this.assertOpen();
    if (!isStorableId(streamId)) {
      return invalidEvent(
        0,
        "streamId",
        `the stream id ${JSON.stringify(streamId)} is not a well-formed string without NUL characters`,
      );
    }
    const batch = serializeBatch(events);
    if (!("ids" in batch)) return batch;
    try {
      return await this.appendBatch(streamId, batch, expected);
    } catch (error) {
      throw this.storeFailure(
        error,
        `appending ${events.length} event(s) to ${JSON.stringify(streamId)}`,
      );
    }
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    const from = Math.max(1, options.fromPosition ?? 1);
    const maxCount = options.maxCount === undefined ? null : Math.max(0, options.maxCount);
    return this.#events(
      () => this.selectStream(streamId, from, maxCount),
      `reading stream ${JSON.stringify(streamId)}`,
    );
  }

  async readAll(options: ReadAllOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    const after = Math.max(0, options.after ?? 0);
    const limit = Math.max(0, options.limit ?? 1000);
    return this.#events(
      () => this.selectAll(after, limit),
      `reading events after global position ${after}`,
    );
  }

  async streamVersion(streamId: string): Promise<number> {
    this.assertOpen();
    try {
      return await this.selectVersion(streamId);
    } catch (error) {
      throw this.storeFailure(error, `reading the version of ${JSON.stringify(streamId)}`);
    }
  }

  /** Every session (stream) with its event count and first/last times, in order of creation. */
  async listSessions(): Promise<SessionSummary[]> {
    this.assertOpen();
    try {
      return (await this.selectSessions()).map(sessionSummaryFromRow);
    } catch (error) {
      throw this.storeFailure(error, "listing sessions");
    }
  }

  /**
   * The session's state (D7): folded from its snapshot for this reducer version when there is
   * one, skipping conversation events before the latest `Compacted` event. Equal to replaying
   * the whole stream.
   */
  async loadState(sessionId: string, options: StateOptions = {}): Promise<LoadedState> {
    this.assertOpen();
    try {
      return await this.foldState(sessionId, options);
    } catch (error) {
      throw this.storeFailure(error, `loading the state of ${JSON.stringify(sessionId)}`);
    }
  }

  /**
   * Caches the session's current state as a snapshot keyed by REDUCER_VERSION, so the next
   * `loadState` folds only what came after. A newer snapshot is never replaced by an older one.
   */
  async saveSnapshot(sessionId: string, options: StateOptions = {}): Promise<LoadedState> {
    const loaded = await this.loadState(sessionId, options);
    if (loaded.version === 0) return loaded;
    try {
      await this.insertSnapshot(sessionId, loaded);
      return loaded;
    } catch (error) {
      throw this.storeFailure(error, `saving a snapshot of ${JSON.stringify(sessionId)}`);
    }
  }

  async renewLease(renewal: LeaseRenewal): Promise<Lease> {
    this.assertOpen();
    try {
      return await this.upsertLease(renewal);
    } catch (error) {
      throw this.storeFailure(error, `renewing the lease of ${JSON.stringify(renewal.holder)}`);
    }
  }

  async releaseLease(holder: string): Promise<void> {
    this.assertOpen();
    try {
      await this.deleteLease(holder);
    } catch (error) {
      throw this.storeFailure(error, `releasing the lease of ${JSON.stringify(holder)}`);
    }
  }

  async readLeases(holders: readonly string[]): Promise<LeaseReading> {
    this.assertOpen();
    try {
      return await this.selectLeases(holders);
    } catch (error) {
      throw this.storeFailure(error, "reading leases");
    }
  }

  async openConversations(): Promise<OpenConversation[]> {
    this.assertOpen();
    try {
      return await this.selectOpenConversations();
    } catch (error) {
      throw this.storeFailure(error, "listing open conversations");
    }
  }

  /** Follows the log as other processes append to it; see the core's `subscribe`. */
  subscribe(options: SubscribeOptions = {}): AsyncGenerator<StoredEvent[], void, undefined> {
    return subscribe(this, options);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.closeConnection();
    } catch (error) {
      throw this.storeFailure(error, "closing the event store");
    }
  }

  protected assertOpen(): void {
    if (this.#closed) {
      throw new EventStoreError(
        "STORE_CLOSED",
        `${this.location}: the event store is closed; open it again`,
      );
    }
  }

  async #events(select: () => Sync<EventRow[]>, doing: string): Promise<StoredEvent[]> {
    let rows: EventRow[];
    try {
      rows = await select();
    } catch (error) {
      throw this.storeFailure(error, doing);
    }
    return eventsFromRows(rows, this.rowSource);
  }
}

function sessionSummaryFromRow(row: SessionRow): SessionSummary {
  return {
    sessionId: row.stream_id,
    eventCount: row.n,
    firstGlobalPosition: row.first_global,
    lastGlobalPosition: row.last_global,
    firstRecordedAt: row.first_at,
    lastRecordedAt: row.last_at,
  };
}
