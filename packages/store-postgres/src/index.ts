// Store-independent (the core's, shared with the SQLite store); re-exported for this store's users.
export type { LoadedState, SessionSummary } from "@toolledger/core";
export { SCHEMA_VERSION } from "./_schema.js";
export { isPostgresUrl } from "./isPostgresUrl.js";
export {
  type Durability,
  openPostgresEventStore,
  PostgresEventStore,
  type PostgresEventStoreOptions,
} from "./postgresEventStore.js";
export { redactConnectionString } from "./redactConnectionString.js";
