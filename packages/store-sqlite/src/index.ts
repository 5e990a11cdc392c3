export type { LoadedState } from "./_loadState.js";
export { APPLICATION_ID, SCHEMA_VERSION } from "./_schema.js";
export {
  type AuditPoint,
  auditEnables,
  type EnableAudit,
  type EnableAuditFilter,
  type EnableAuditRecord,
  type EnableOutcome,
  type EndedBy,
  type OrphanResponse,
} from "./auditEnables.js";
export { checkStoreFile, type FileCheck, stampStoreFile } from "./checkStoreFile.js";
export { ENABLE_AUDIT_CSV_COLUMNS, formatEnableAuditCsv } from "./formatEnableAuditCsv.js";
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
  type SessionSummary,
  SqliteEventStore,
  type SqliteEventStoreOptions,
  type StoreSettings,
} from "./sqliteEventStore.js";
export { type SubscribeOptions, subscribe } from "./subscribe.js";
