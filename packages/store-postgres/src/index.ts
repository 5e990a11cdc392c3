// Store-independent since both stores load states the same way; re-exported for their users.
export type { LoadedState } from "@toolledger/core";
export { SCHEMA_VERSION } from "./_schema.js";
export { isPostgresUrl } from "./isPostgresUrl.js";
export {
  type Durability,
  openPostgresEventStore,
  PostgresEventStore,
  type PostgresEventStoreOptions,
  type SessionSummary,
} from "./postgresEventStore.js";
export { redactConnectionString } from "./redactConnectionString.js";
