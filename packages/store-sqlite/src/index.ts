// The audit, the subscription loop, state loading and the session listing are store-independent
// (in the core since the PostgreSQL store); re-exported so code written against this package
// keeps working.
export {
  type AuditPoint,
  auditEnables,
  ENABLE_AUDIT_CSV_COLUMNS,
  type EnableAudit,
  type EnableAuditFilter,
  type EnableAuditRecord,
  type EnableOutcome,
  type EndedBy,
  formatEnableAuditCsv,
  type LoadedState,
  type OrphanResponse,
  type SessionSummary,
  type SubscribeOptions,
  subscribe,
} from "@toolledger/core";
export { APPLICATION_ID, SCHEMA_VERSION } from "./_schema.js";
export { checkNativeModule, type NativeModuleCheck } from "./checkNativeModule.js";
export { checkStoreFile, type FileCheck, stampStoreFile } from "./checkStoreFile.js";
export { type PruneOptions, type PruneReport, pruneStore } from "./pruneStore.js";
export {
  readSqliteSnapshot,
  type SnapshotOptions,
  type SnapshotQuery,
} from "./readSqliteSnapshot.js";
export {
  readMaintenanceLog,
  type ScrubOptions,
  type ScrubRedactor,
  type ScrubReport,
  scrubStore,
} from "./scrubStore.js";
export {
  type Durability,
  openSqliteEventStore,
  SqliteEventStore,
  type SqliteEventStoreOptions,
  type StoreSettings,
} from "./sqliteEventStore.js";
