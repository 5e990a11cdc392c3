import type { EnableAudit, EnableAuditFilter, EventStore } from "@toolledger/core";
import {
  type DatabaseLocation,
  prepareDatabaseDirectory,
  requireExistingDatabase,
} from "./databasePath.js";

/** One stream of the database, as the stores list it. */
export interface SessionSummary {
  sessionId: string;
  eventCount: number;
  firstGlobalPosition: number;
  lastGlobalPosition: number;
  firstRecordedAt: string;
  lastRecordedAt: string;
}

/** What the CLI needs of a store: the log, the session list and the enable audit. */
export interface SessionStore extends EventStore {
  /** For messages: the file, or the server (password redacted) and schema. */
  readonly location: string;
  listSessions(): Promise<SessionSummary[]>;
  auditEnables(filter?: EnableAuditFilter): Promise<EnableAudit>;
}

/**
 * The one place the CLI picks a store: a `postgres://` location opens the PostgreSQL store,
 * anything else a SQLite file. `"read"` creates nothing (a missing file or an empty server is
 * not-found); `"write"` creates the file and its directory, or the schema. Each store's
 * package is loaded only when used, so neither driver loads for the other's users.
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
  if (mode === "read") requireExistingDatabase(location);
  else prepareDatabaseDirectory(location);
  const { openSqliteEventStore } = await import("@toolledger/store-sqlite");
  return openSqliteEventStore(location.path);
}
