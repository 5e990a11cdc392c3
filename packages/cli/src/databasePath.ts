import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { CliError } from "./cliError.js";

export const DB_ENV = "TOOLLEDGER_DB";
export const DB_FILE_NAME = "sessions.db";

export interface DatabaseLocation {
  path: string;
  /** Which rule chose it, for messages. */
  source: "--db" | typeof DB_ENV | "XDG_DATA_HOME" | "home";
}

/**
 * `--db`, else `$TOOLLEDGER_DB`, else `$XDG_DATA_HOME/toolledger/sessions.db`, else
 * `~/.local/share/toolledger/sessions.db`. A relative XDG_DATA_HOME is ignored, as the XDG
 * base directory spec requires.
 */
export function resolveDatabasePath(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  cwd: string,
): DatabaseLocation {
  if (flag !== undefined && flag !== "") return { path: resolve(cwd, flag), source: "--db" };
  const fromEnv = env[DB_ENV];
  if (fromEnv !== undefined && fromEnv !== "")
    return { path: resolve(cwd, fromEnv), source: DB_ENV };
  const xdg = env.XDG_DATA_HOME;
  if (xdg !== undefined && xdg !== "" && isAbsolute(xdg)) {
    return { path: join(xdg, "toolledger", DB_FILE_NAME), source: "XDG_DATA_HOME" };
  }
  return { path: join(home, ".local", "share", "toolledger", DB_FILE_NAME), source: "home" };
}

/** Reading commands call this first: a missing database is an error that creates nothing. */
export function requireExistingDatabase(location: DatabaseLocation): void {
  if (!existsSync(location.path)) {
    throw new CliError(
      "notFound",
      `no session database at ${location.path} (chosen by ${location.source})`,
      {
        hint: "run `toolledger demo` or `toolledger serve` to record a session, or pass --db <file> / set TOOLLEDGER_DB",
      },
    );
  }
  if (statSync(location.path).isDirectory()) {
    throw new CliError("badInput", `${location.path} is a directory, not a session database`, {
      hint: "pass the database file itself with --db <file>",
    });
  }
}

/** Writing commands call this: creates the parent directory when needed. */
export function prepareDatabaseDirectory(location: DatabaseLocation): void {
  mkdirSync(dirname(location.path), { recursive: true });
}
