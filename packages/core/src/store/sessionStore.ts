import type { EnableAudit, EnableAuditFilter } from "../audit/auditEnables.js";
import type { LoadedState } from "../fold/snapshotFold.js";
import type { StateOptions } from "../fold/state.js";
import type { EventStore, StoredEvent } from "./eventStore.js";
import type { Lease, LeaseReading, LeaseRenewal, OpenConversation } from "./leases.js";
import type { SubscribeOptions } from "./subscribe.js";

/** One stream (session) of a store, as `listSessions` gives it. */
export interface SessionSummary {
  sessionId: string;
  eventCount: number;
  firstGlobalPosition: number;
  lastGlobalPosition: number;
  /** When the store recorded the first and the last event (ISO-8601). */
  firstRecordedAt: string;
  lastRecordedAt: string;
}

/**
 * What hosts and the CLI use of a durable store beyond the log; the SQLite and PostgreSQL
 * stores both give it.
 */
export interface SessionStore extends EventStore {
  /** For messages: the file, or the server (password redacted) and schema. */
  readonly location: string;
  /** Every session with its event count and first/last times, in order of creation. */
  listSessions(): Promise<SessionSummary[]>;
  /** D7: the session's state, from its snapshot when there is one. */
  loadState(sessionId: string, options?: StateOptions): Promise<LoadedState>;
  /** Caches the session's current state, so the next `loadState` folds only what came after. */
  saveSnapshot(sessionId: string, options?: StateOptions): Promise<LoadedState>;
  /** The enable history (D6) of one session or all, filtered. */
  auditEnables(filter?: EnableAuditFilter): Promise<EnableAudit>;
  /** Follows the log as other processes append to it. */
  subscribe(options?: SubscribeOptions): AsyncGenerator<StoredEvent[], void, undefined>;
  /** L3: takes or renews the holder's lease until `ttlMs` from now (the store's clock). */
  renewLease(renewal: LeaseRenewal): Promise<Lease>;
  /** L3: gives the holder's lease up (a clean stop: its conversations were closed). */
  releaseLease(holder: string): Promise<void>;
  /** L3: the leases of these holders that the store knows, with the store's time. */
  readLeases(holders: readonly string[]): Promise<LeaseReading>;
  /** L3: every conversation not closed since it was last opened. */
  openConversations(): Promise<OpenConversation[]>;
}
