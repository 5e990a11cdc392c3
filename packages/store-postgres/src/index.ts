// Store-independent (the core's, shared with the SQLite store); re-exported for this store's users.
export type { LoadedState, SessionSummary } from "@toolledger/core";
export { isPostgresUrl } from "./database/isPostgresUrl.js";
export { redactConnectionString } from "./database/redactConnectionString.js";
export { SCHEMA_VERSION } from "./database/schema.js";
export {
  type Durability,
  openPostgresEventStore,
  PostgresEventStore,
  type PostgresEventStoreOptions,
} from "./eventStore/postgresEventStore.js";
