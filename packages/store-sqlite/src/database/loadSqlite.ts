import Database from "better-sqlite3";

let loaded = false;

/**
 * Loads SQLite's native module, once, with URI filenames on (an immutable read-only open
 * needs them). SQLite reads them only when told so before it initialises, and better-sqlite3
 * reads SQLITE_USE_URI when its native module loads, at the first `new Database`: so the first
 * open in this process sets the variable, loads, and removes it again, so that processes this
 * one starts (a gateway's MCP servers) do not inherit it. Only names that start with `file:`
 * change meaning, and the stores open such a path as `./file:…`. An environment that sets the
 * variable itself is left alone. Called right before a store opens a database, never at import
 * time: a command that needs no database (`doctor` on a machine whose native module is
 * missing) must not fail on it. Throws what loading throws.
 */
export function loadSqlite(): void {
  if (loaded) return;
  if (process.env.SQLITE_USE_URI === undefined) {
    process.env.SQLITE_USE_URI = "1";
    try {
      new Database(":memory:").close();
    } finally {
      delete process.env.SQLITE_USE_URI;
    }
  }
  loaded = true;
}
