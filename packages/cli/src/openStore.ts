import type { SessionStore } from "@toolledger/core";
import { CliError } from "./cliError.js";
import {
  type DatabaseLocation,
  prepareDatabaseDirectory,
  requireExistingDatabase,
} from "./databasePath.js";

/**
 * The one place the CLI picks a store: a `postgres://` location opens the PostgreSQL store,
 * anything else a SQLite file. `"read"` creates nothing (a missing file or an empty server is
 * not-found); `"write"` creates the file and its directory, or the schema, and refuses a
 * damaged SQLite file before writing anything to it (every page is read unless the file is
 * exactly as a toolledger writer left it). Each store's package is loaded only when used,
 * so neither driver loads for the other's users.
 */
export async function openStore(
  location: DatabaseLocation,
  mode: "read" | "write",
): Promise<SessionStore> {
  if (location.kind === "postgres") {
    const { openPostgresEventStore } = await import("@toolledger/store-postgres");
    // A gateway's conversations read and append at once; a reading command needs little.
    return openPostgresEventStore(location.url, {
      create: mode === "write",
      poolSize: mode === "write" ? 4 : 2,
    });
  }
  const { openSqliteEventStore } = await import("@toolledger/store-sqlite");
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
