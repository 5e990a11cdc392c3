import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { loadSqlite } from "./loadSqlite.js";

/** Whether better-sqlite3's native module loads in this Node, and where it is installed. */
export interface NativeModuleCheck {
  ok: boolean;
  /** better-sqlite3's version, and its folder (where a rebuild runs). */
  driver: { version: string; dir: string } | null;
  /** SQLite's own version, when the module loads. */
  sqlite?: string;
  /**
   * `missing`: no compiled module (its install script was skipped or failed, e.g. offline);
   * `wrong_node`: compiled for another Node version; `load_failed`: anything else.
   */
  problem?: "missing" | "wrong_node" | "load_failed";
  /** The loader's message, whole (better-sqlite3's `bindings` lists every path it tried, one a line). */
  error?: string;
}

const require = createRequire(import.meta.url);

/** Opens an in-memory database: the module loads on first use, so this is the real test. */
export function checkNativeModule(): NativeModuleCheck {
  let driver: NativeModuleCheck["driver"] = null;
  try {
    const manifest = require.resolve("better-sqlite3/package.json");
    const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
    driver = { version, dir: dirname(manifest) };
  } catch {
    // Reported below by the open, which fails the same way.
  }
  try {
    loadSqlite();
    const db = new Database(":memory:");
    try {
      const row = db.prepare("SELECT sqlite_version() AS v").get() as { v: string };
      return { ok: true, driver, sqlite: row.v };
    } finally {
      db.close();
    }
  } catch (error) {
    const message = (error as Error).message;
    const problem = /NODE_MODULE_VERSION/.test(message)
      ? "wrong_node"
      : /Could not locate the bindings file|Cannot find module/.test(message)
        ? "missing"
        : "load_failed";
    return { ok: false, driver, problem, error: message };
  }
}
