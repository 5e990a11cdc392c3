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
export { checkNativeModule, type NativeModuleCheck } from "./database/checkNativeModule.js";
export { checkStoreFile, type FileCheck, stampStoreFile } from "./database/checkStoreFile.js";
export {
  readSqliteSnapshot,
  type SnapshotOptions,
  type SnapshotQuery,
} from "./database/readSqliteSnapshot.js";
export { APPLICATION_ID, SCHEMA_VERSION } from "./database/schema.js";
export {
  type Durability,
  openSqliteEventStore,
  SqliteEventStore,
  type SqliteEventStoreOptions,
  type StoreSettings,
} from "./eventStore/sqliteEventStore.js";
export { type PruneOptions, type PruneReport, pruneStore } from "./maintenance/pruneStore.js";
export {
  readMaintenanceLog,
  type ScrubOptions,
  type ScrubRedactor,
  type ScrubReport,
  scrubStore,
} from "./maintenance/scrubStore.js";
