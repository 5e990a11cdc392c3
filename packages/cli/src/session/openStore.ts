import type { SessionStore } from "@toolledger/core";
import { CliError } from "../program/cliError.js";
import { storeProblem } from "../program/toCliError.js";
import {
  type DatabaseLocation,
  prepareDatabaseDirectory,
  requireExistingDatabase,
} from "./databasePath.js";

/**
 * The one place the CLI picks a store: a `postgres://` location opens the PostgreSQL store,
 * anything else a SQLite file. `"read"` creates nothing (a missing file or an empty server is
 * not-found) and writes nothing, so a SQLite file in a read-only folder reads; `"write"`
 * creates the file and its directory, or the schema, refuses a file or folder it cannot
 * write, and refuses a damaged SQLite file before writing anything to it (every page is read
 * unless the file is exactly as a toolledger writer left it). Each store's package is loaded
 * only when used, so neither driver loads for the other's users.
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
    return openSqliteEventStore(location.path, { readOnly: true });
  }
  prepareDatabaseDirectory(location);
  try {
    return openSqliteEventStore(location.path, { verify: true });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "STORE_READ_ONLY") {
      throw new CliError("badInput", storeProblem(error as Error), {
        cause: error,
        hint: `this command records to the database: pass --db <a file in a writable folder> (or set TOOLLEDGER_DB), or make ${location.path} and its folder writable; sessions, replay, audit, explain, export and view read it where it is`,
      });
    }
    if (code !== "STORE_CORRUPT") throw error;
    throw new CliError("badInput", (error as Error).message, {
      cause: error,
      hint: await (await import("./damagedDatabaseHint.js")).damagedDatabaseHint(location.path),
    });
  }
}
