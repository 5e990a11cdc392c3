import { accessSync, constants, existsSync } from "node:fs";
import { dirname } from "node:path";
import { EventStoreError } from "@toolledger/core";

/**
 * A writer checks before it opens: SQLite writes the file and, in WAL mode, `<file>-wal` and
 * `<file>-shm` beside it, so a read-only file or folder is refused here with what to do,
 * instead of failing half-way in SQLite. Throws STORE_READ_ONLY.
 */
export function requireWritable(file: string): void {
  const why = readOnlyReason(file);
  if (why === undefined) return;
  const advice = "make it writable, or open it with readOnly to read it";
  throw new EventStoreError(
    "STORE_READ_ONLY",
    `${file}: cannot write to the event store: ${why}; ${advice}`,
    { advice },
  );
}

/**
 * Why this process cannot write the event store at `file` (the file, or the folder SQLite
 * writes `-wal` and `-shm` in), or undefined when it can.
 */
export function readOnlyReason(file: string): string | undefined {
  const dir = dirname(file);
  const fileReadOnly = existsSync(file) && !writable(file);
  const folderReadOnly = !writable(dir) && !(writable(`${file}-wal`) && writable(`${file}-shm`));
  const beside = `SQLite writes ${file}-wal and ${file}-shm beside the file`;
  if (fileReadOnly && folderReadOnly)
    return `the file is read-only, and so is its folder ${dir} (${beside})`;
  if (fileReadOnly) return "the file is read-only";
  if (folderReadOnly) return `its folder ${dir} is read-only (${beside})`;
  return undefined;
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EROFS" || code === "EPERM" || code === "ENOENT")
      return false;
    throw error;
  }
}
