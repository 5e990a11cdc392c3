import { existsSync, statSync } from "node:fs";
import { resolve, sep } from "node:path";
import type { Deps } from "../program/deps.js";
import { resolveDatabasePath } from "./databasePath.js";
import type { LogEntry } from "./logEntry.js";
import { openStore } from "./openStore.js";
import { readJsonl } from "./readJsonl.js";
import { readSession } from "./readSession.js";

export interface LoadedLog {
  entries: LogEntry[];
  /** For messages: `session <id> in <db>` or the file path. */
  label: string;
  session: string | undefined;
  /** The database the session came from, when it came from one (a URL's password as `***`). */
  db: string | undefined;
  /** The SQLite file it came from (undefined for a file log or a PostgreSQL server). */
  dbFile?: string | undefined;
}

/** Whether `source` names a JSONL file rather than a session id. */
export function isFileSource(source: string, cwd: string): boolean {
  if (
    source.endsWith(".jsonl") ||
    source.endsWith(".json") ||
    source.includes(sep) ||
    source.includes("/")
  )
    return true;
  const path = resolve(cwd, source);
  return existsSync(path) && statSync(path).isFile();
}

/** A session from the database, or a JSONL file (`toolledger export` output or bare events). */
export async function loadLog(
  source: string,
  dbFlag: string | undefined,
  deps: Deps,
): Promise<LoadedLog> {
  if (isFileSource(source, deps.cwd)) {
    const path = resolve(deps.cwd, source);
    const log = readJsonl(path);
    return { entries: log.entries, label: path, session: log.session, db: undefined };
  }
  const location = resolveDatabasePath(dbFlag, deps.env, deps.home, deps.cwd);
  const store = await openStore(location, "read");
  try {
    const entries = await readSession(store, source);
    return {
      entries,
      label: `session ${source} in ${location.path}`,
      session: source,
      db: location.path,
      dbFile: location.kind === "sqlite" ? location.path : undefined,
    };
  } finally {
    await store.close();
  }
}
