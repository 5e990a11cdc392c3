import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
} from "node:fs";
import Database from "better-sqlite3";
import { loadSqlite } from "./loadSqlite.js";
import { openReadOnlyDatabase, plainName } from "./readOnlyDatabase.js";
import { readOnlyReason } from "./requireWritable.js";

/** What a writer learns about a database file before it writes to it (and `doctor` of any file). */
export interface FileCheck {
  file: string;
  ok: boolean;
  /**
   * Why this process cannot write the file or its folder, or null when it can. A file it
   * cannot write is checked through a read-only connection (nothing is written, not even
   * the stamp).
   */
  readOnly: string | null;
  /**
   * `new`: no file yet. `unchanged`: exactly as a toolledger writer left it after a clean close
   * (size, times and inode match its stamp), so its pages are not read again. `quick_check`:
   * every page was read (`PRAGMA quick_check`): first use, after a crash, or changed by
   * something else.
   */
  method: "new" | "unchanged" | "quick_check";
  /** Milliseconds the check took. */
  ms: number;
  /** What is wrong (SQLite's findings), empty when `ok`. */
  problems: string[];
}

/** Findings of quick_check beyond these are not worth reading (one is enough to refuse). */
const MAX_PROBLEMS = 10;

/**
 * Checks an event store file before anything writes to it: its header (always: magic,
 * page size, whole pages), then every page with `PRAGMA quick_check` unless the file is
 * exactly as a toolledger writer left it at a clean close (`stampStoreFile`). A clean restart
 * costs a stat; a 1 GB file that changed costs one read of every page.
 */
export function checkStoreFile(file: string): FileCheck {
  const started = performance.now();
  const readOnly = readOnlyReason(file) ?? null;
  const done = (method: FileCheck["method"], problems: string[]): FileCheck => ({
    file,
    ok: problems.length === 0,
    readOnly,
    method,
    ms: Math.round(performance.now() - started),
    problems,
  });
  if (!existsSync(file)) return done("new", []);
  const header = headerProblems(file);
  if (header.length > 0) return done("quick_check", header);
  if (stampMatches(file)) return done("unchanged", []);
  let problems: string[];
  let db: Database.Database | undefined;
  try {
    loadSqlite();
    // A reader may check a file it cannot write (a shared archive): opened read-write,
    // SQLite would fail on the WAL index it cannot create.
    db =
      readOnly === null
        ? new Database(plainName(file), { fileMustExist: true })
        : openReadOnlyDatabase(file, 5000);
    // Reading pages through a mapping saves a copy each: ~20% of a 1 GB check.
    db.pragma("mmap_size = 4294967296");
    const rows = db.pragma(`quick_check(${MAX_PROBLEMS})`) as Record<string, unknown>[];
    const findings = rows.map((r) => String(Object.values(r)[0]));
    problems = findings.length === 1 && findings[0] === "ok" ? [] : findings;
  } catch (error) {
    // A header SQLite cannot read, a page it trips over while opening: damaged, not a crash.
    const code = (error as { code?: unknown }).code;
    if (typeof code !== "string" || !/^SQLITE_(CORRUPT|NOTADB)/.test(code)) throw error;
    problems = [`${(error as Error).message} (${code})`];
  } finally {
    // Closing may checkpoint a WAL left by a crash: stamp what the file is afterwards.
    db?.close();
  }
  if (problems.length === 0 && readOnly === null) stampStoreFile(file);
  return done("quick_check", problems);
}

/**
 * Records that the file is as a toolledger writer left it (after a clean close, or after a
 * full check), so the next writer need not read every page. Anything else that changes the
 * file changes its size, times or inode, and the next writer checks every page again.
 */
export function stampStoreFile(file: string): void {
  try {
    writeFileSync(stampPath(file), `${JSON.stringify(identity(file))}\n`);
  } catch (error) {
    // Only a cache: without it the next writer reads every page, as after a crash.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EACCES" && code !== "EPERM" && code !== "EROFS" && code !== "ENOENT") throw error;
  }
}

function stampPath(file: string): string {
  return `${file}-checked`;
}

function identity(file: string): Record<string, string> {
  const s = statSync(file, { bigint: true });
  return {
    size: String(s.size),
    mtimeNs: String(s.mtimeNs),
    ctimeNs: String(s.ctimeNs),
    ino: String(s.ino),
    dev: String(s.dev),
  };
}

function stampMatches(file: string): boolean {
  let stamp: unknown;
  try {
    stamp = JSON.parse(readFileSync(stampPath(file), "utf8"));
  } catch {
    return false;
  }
  const now = identity(file);
  return (
    typeof stamp === "object" &&
    stamp !== null &&
    Object.entries(now).every(([k, v]) => (stamp as Record<string, unknown>)[k] === v)
  );
}

/** The 100-byte header: SQLite's magic string, a valid page size, a file of whole pages. */
function headerProblems(file: string): string[] {
  const size = statSync(file).size;
  if (size === 0) return [];
  if (size < 100) return [`the file is ${size} bytes, shorter than a SQLite header`];
  const header = Buffer.alloc(100);
  const fd = openSync(file, "r");
  try {
    readSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (header.toString("latin1", 0, 16) !== "SQLite format 3\u0000")
    return ["the first bytes are not SQLite's header (overwritten, or not a database)"];
  const raw = header.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0)
    return [`the header's page size ${raw} is not one SQLite writes`];
  if (size % pageSize !== 0)
    return [`the file is ${size} bytes, not a whole number of ${pageSize}-byte pages`];
  return [];
}
