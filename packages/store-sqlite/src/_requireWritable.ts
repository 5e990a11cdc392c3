import { accessSync, constants, existsSync } from "node:fs";
import { dirname } from "node:path";
import { EventStoreError } from "@toolledger/core";

/**
 * A writer checks before it opens: SQLite writes the file and, in WAL mode, `<file>-wal` and
 * `<file>-shm` beside it, so a read-only file or folder is refused here with what to do,
 * instead of failing half-way in SQLite. Throws STORE_READ_ONLY.
 */
export function requireWritable(file: string): void {
  const dir = dirname(file);
  let why: string | undefined;
  if (existsSync(file) && !writable(file)) why = "the file is read-only";
  else if (!writable(dir) && !(writable(`${file}-wal`) && writable(`${file}-shm`))) {
    why = `its folder ${dir} is read-only (SQLite writes ${file}-wal and ${file}-shm beside the file)`;
  }
  if (why === undefined) return;
  throw new EventStoreError(
    "STORE_READ_ONLY",
    `${file}: cannot write to the event store: ${why}; make it writable, or open it with readOnly to read it`,
  );
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
