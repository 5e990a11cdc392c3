import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { isPostgresUrl, redactConnectionString } from "@toolledger/store-postgres/url";
import { CliError } from "../program/cliError.js";

export const DB_ENV = "TOOLLEDGER_DB";
export const DB_FILE_NAME = "sessions.db";

export type DatabaseLocation =
  | {
      kind: "sqlite";
      /** The database file (also what messages show). */
      path: string;
      /** Which rule chose it, for messages. */
      source: "--db" | typeof DB_ENV | "XDG_DATA_HOME" | "home";
    }
  | {
      kind: "postgres";
      /** What messages show: the URL with its password replaced by `***`. */
      path: string;
      /** The URL to connect with (it may hold a password: never print it). */
      url: string;
      source: "--db" | typeof DB_ENV;
    };

/**
 * `--db`, else `$TOOLLEDGER_DB`, else `$XDG_DATA_HOME/toolledger/sessions.db`, else
 * `~/.local/share/toolledger/sessions.db`. A `postgres://` or `postgresql://` URL names a
 * PostgreSQL server; anything else is a SQLite file. A relative XDG_DATA_HOME is ignored, as
 * the XDG base directory spec requires.
 */
export function resolveDatabasePath(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  cwd: string,
): DatabaseLocation {
  if (flag !== undefined && flag !== "") return given(flag, "--db", cwd);
  const fromEnv = env[DB_ENV];
  if (fromEnv !== undefined && fromEnv !== "") return given(fromEnv, DB_ENV, cwd);
  const xdg = env.XDG_DATA_HOME;
  if (xdg !== undefined && xdg !== "" && isAbsolute(xdg)) {
    return { kind: "sqlite", path: join(xdg, "toolledger", DB_FILE_NAME), source: "XDG_DATA_HOME" };
  }
  return {
    kind: "sqlite",
    path: join(home, ".local", "share", "toolledger", DB_FILE_NAME),
    source: "home",
  };
}

function given(value: string, source: "--db" | typeof DB_ENV, cwd: string): DatabaseLocation {
  if (isPostgresUrl(value)) {
    return { kind: "postgres", path: redactConnectionString(value), url: value, source };
  }
  return { kind: "sqlite", path: resolve(cwd, value), source };
}

/** Reading commands call this first: a missing database file is an error that creates nothing. */
export function requireExistingDatabase(location: DatabaseLocation): void {
  if (location.kind !== "sqlite") return;
  if (!existsSync(location.path)) {
    throw new CliError(
      "notFound",
      `no session database at ${location.path} (chosen by ${location.source})`,
      {
        hint: "run `toolledger demo` or `toolledger serve` to record a session, or pass --db <file or postgres:// URL> / set TOOLLEDGER_DB",
      },
    );
  }
  if (statSync(location.path).isDirectory()) {
    throw new CliError("badInput", `${location.path} is a directory, not a session database`, {
      hint: "pass the database file itself with --db <file>",
    });
  }
}

/**
 * Commands that rewrite a SQLite file (prune, scrub) call this first: a PostgreSQL database is
 * a usage error saying what to do there instead (`onPostgres`); a missing file is not found.
 */
export function requireSqliteFile(
  location: DatabaseLocation,
  command: string,
  onPostgres: string,
): asserts location is Extract<DatabaseLocation, { kind: "sqlite" }> {
  if (location.kind === "postgres") {
    throw new CliError(
      "usage",
      `${command} rewrites SQLite files; ${location.path} is a PostgreSQL database`,
      { hint: onPostgres },
    );
  }
  requireExistingDatabase(location);
}

/** Writing commands call this: creates the parent directory of a database file when needed. */
export function prepareDatabaseDirectory(location: DatabaseLocation): void {
  if (location.kind === "sqlite") mkdirSync(dirname(location.path), { recursive: true });
}
