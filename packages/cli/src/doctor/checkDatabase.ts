import { accessSync, constants, existsSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import { dirname } from "node:path";
import type { CliError } from "../program/cliError.js";
import { toCliError } from "../program/toCliError.js";
import { type DatabaseLocation, DB_ENV } from "../session/databasePath.js";
import { openStore } from "../session/openStore.js";
import type { DoctorFinding } from "./doctorFinding.js";

/**
 * The session database the commands would use: where it is and why, whether it opens, its
 * schema and sessions, and (a SQLite file) whether every page reads and whether this user can
 * write it. Nothing is written but the stamp of a sound file this user may write.
 */
export async function checkDatabase(
  location: DatabaseLocation,
  unexpected: (error: CliError) => void = () => {},
): Promise<DoctorFinding> {
  const subject = `${location.path} (${location.source === "home" ? "the default" : location.source})`;
  const finding = (
    status: DoctorFinding["status"],
    message: string,
    fix?: string,
  ): DoctorFinding => ({
    check: "database",
    subject,
    status,
    message,
    ...(fix === undefined ? {} : { fix }),
  });
  if (location.kind === "sqlite") {
    if (!existsSync(location.path)) {
      const dir = nearestExisting(dirname(location.path));
      if (!writable(dir))
        return finding(
          "fail",
          `does not exist, and ${dir} is not writable`,
          `make ${dir} writable, or choose another file with --db or ${DB_ENV}`,
        );
      return finding("ok", "not created yet: the first `toolledger serve` or `demo` creates it");
    }
    if (statSync(location.path).isDirectory())
      return finding("fail", "is a directory", `point --db or ${DB_ENV} at a file`);
    const { checkStoreFile } = await import("@toolledger/store-sqlite");
    let pages: string;
    let readOnly: string | null;
    try {
      const check = checkStoreFile(location.path);
      readOnly = check.readOnly;
      if (!check.ok)
        return finding(
          "fail",
          `damaged: ${check.problems.slice(0, 2).join("; ")}`,
          `keep working on a new file (--db <new file>); recover this one with \`sqlite3 ${location.path} .recover | sqlite3 recovered.db\`, or restore a backup`,
        );
      pages =
        check.method === "unchanged"
          ? "unchanged since toolledger last closed it cleanly"
          : `every page read in ${check.ms} ms`;
    } catch (error) {
      const e = toCliError(error);
      unexpected(e);
      // Unreadable in place (a read-only folder and events still in its -wal): the message
      // says what to do; the writing commands' hint would not fit.
      const inPlace = (error as { code?: unknown }).code === "STORE_READ_ONLY";
      return finding("fail", e.message, inPlace ? undefined : e.hint);
    }
    const summary = await sessions(location, unexpected);
    if (typeof summary !== "string") return { ...summary, subject };
    const size = statSync(location.path).size;
    if (readOnly !== null)
      return finding(
        "warn",
        `${summary}, ${mib(size)}, ${pages}; read-only for ${currentUser()}: ${readOnly}`,
        `sessions, replay, audit, explain, export and view read it where it is; to record (serve, demo, import, clear, compact) pass --db <a file in a writable folder> (or set ${DB_ENV}), or make the file and its folder writable for ${currentUser()}`,
      );
    return finding("ok", `${summary}, ${mib(size)}, ${pages}`);
  }
  const summary = await sessions(location, unexpected);
  if (typeof summary !== "string") return { ...summary, subject };
  return finding("ok", summary);
}

async function sessions(
  location: DatabaseLocation,
  unexpected: (error: CliError) => void,
): Promise<string | DoctorFinding> {
  let store: Awaited<ReturnType<typeof openStore>> | undefined;
  try {
    store = await openStore(location, "read");
    const list = await store.listSessions();
    const events = list.reduce((n, s) => n + s.eventCount, 0);
    return `opens; ${list.length} session(s), ${events} event(s)`;
  } catch (error) {
    const e = toCliError(error);
    unexpected(e);
    const missing = (error as { code?: unknown }).code === "STORE_NOT_FOUND";
    return {
      check: "database",
      subject: location.path,
      status: missing ? "ok" : "fail",
      message: missing
        ? "no event store there yet: the first `toolledger serve` or `demo` creates it"
        : e.message,
      ...(missing || e.hint === undefined ? {} : { fix: e.hint }),
    };
  } finally {
    await store?.close();
  }
}

function nearestExisting(dir: string): string {
  let d = dir;
  while (!existsSync(d) && dirname(d) !== d) d = dirname(d);
  return d;
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The user file permissions are checked for (`nobody`, `alice`), or `you` when unknown. */
function currentUser(): string {
  try {
    return `you (${userInfo().username})`;
  } catch {
    return "you";
  }
}

function mib(bytes: number): string {
  return bytes < 1024 * 1024
    ? `${(bytes / 1024).toFixed(1)} KiB`
    : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
