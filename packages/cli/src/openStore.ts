import { openSqliteEventStore, type SqliteEventStore } from "@toolledger/store-sqlite";
import {
  type DatabaseLocation,
  prepareDatabaseDirectory,
  requireExistingDatabase,
} from "./databasePath.js";

/**
 * Opens the session database. `"read"` refuses a missing file (reading commands never
 * create an empty database); `"write"` creates it and its directory.
 */
export function openStore(location: DatabaseLocation, mode: "read" | "write"): SqliteEventStore {
  if (mode === "read") requireExistingDatabase(location);
  else prepareDatabaseDirectory(location);
  return openSqliteEventStore(location.path);
}
