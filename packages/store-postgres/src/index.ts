export type { LoadedState } from "./_loadState.js";
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
