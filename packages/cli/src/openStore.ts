import { openSqliteEventStore, type SqliteEventStore } from "@toolledger/store-sqlite";
import { CliError } from "./cliError.js";
import {
  type DatabaseLocation,
  prepareDatabaseDirectory,
  requireExistingDatabase,
} from "./databasePath.js";

/**
 * Opens the session database. `"read"` refuses a missing file (reading commands never
 * create an empty database); `"write"` creates it and its directory, and refuses a damaged
 * file before writing anything to it (every page is read unless the file is exactly as a
 * toolledger writer left it).
 */
export function openStore(location: DatabaseLocation, mode: "read" | "write"): SqliteEventStore {
  if (mode === "read") {
    requireExistingDatabase(location);
    return openSqliteEventStore(location.path);
  }
  prepareDatabaseDirectory(location);
  try {
    return openSqliteEventStore(location.path, { verify: true });
  } catch (error) {
    if ((error as { code?: unknown }).code !== "STORE_CORRUPT") throw error;
    const file = location.path;
    throw new CliError("badInput", (error as Error).message, {
      cause: error,
      hint: `keep working on a new file with --db <new file> (or TOOLLEDGER_DB); the damaged one still reads where it is sound (toolledger sessions / replay / export --db ${file}); recover it with \`sqlite3 ${file} .recover | sqlite3 recovered.db\`, or restore a backup`,
    });
  }
}
