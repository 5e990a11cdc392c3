import { randomUUID } from "node:crypto";
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { hostname } from "node:os";

export interface FileLockOptions {
  /** How long to wait for another holder before giving up. Default 30 s. */
  timeoutMs?: number;
  /** A lock older than this whose holder cannot be checked is taken over. Default 60 s. */
  staleMs?: number;
}

/** A lock file held by another process that did not let go within the wait. */
export class LockTimeoutError extends Error {
  constructor(path: string, holder: string) {
    super(`${path} is held by ${holder} and was not released in time`);
    this.name = "LockTimeoutError";
  }
}

interface Holder {
  pid: number;
  host: string;
  id: string;
  at: number;
}

/**
 * A2: runs `work` holding an exclusive lock file (`O_CREAT|O_EXCL`), across processes of this
 * machine and any machine sharing the directory. A holder that died (its pid is gone on this
 * host) or went silent for `staleMs` is taken over. Released even when `work` throws.
 */
export async function withFileLock<T>(
  path: string,
  work: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const staleMs = options.staleMs ?? 60_000;
  const me: Holder = { pid: process.pid, host: hostname(), id: randomUUID(), at: Date.now() };
  const deadline = Date.now() + timeoutMs;
  let wait = 10;
  for (;;) {
    if (tryCreate(path, me)) break;
    const holder = readHolder(path);
    if (holder === null || abandoned(path, holder, staleMs)) {
      // Taken over only if it is still the lock we judged (another waiter may have won).
      if (readHolder(path)?.id === holder?.id) rmSync(path, { force: true });
      continue;
    }
    if (Date.now() >= deadline)
      throw new LockTimeoutError(path, `pid ${holder.pid} on ${holder.host}`);
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(100, wait * 2);
  }
  try {
    return await work();
  } finally {
    if (readHolder(path)?.id === me.id) rmSync(path, { force: true });
  }
}

function tryCreate(path: string, me: Holder): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, JSON.stringify(me));
  } finally {
    closeSync(fd);
  }
  return true;
}

function readHolder(path: string): Holder | null {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<Holder>;
    if (typeof parsed.pid !== "number" || typeof parsed.id !== "string") return null;
    return {
      pid: parsed.pid,
      host: String(parsed.host ?? ""),
      id: parsed.id,
      at: Number(parsed.at ?? 0),
    };
  } catch (error) {
    // Gone meanwhile, or caught between create and write: judged again on the next round.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    return { pid: -1, host: "", id: "unreadable", at: mtime(path) };
  }
}

function abandoned(path: string, holder: Holder, staleMs: number): boolean {
  if (holder.host === hostname() && holder.pid > 0) {
    try {
      process.kill(holder.pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ESRCH") return true;
    }
  }
  return Date.now() - Math.max(holder.at, mtime(path)) > staleMs;
}

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}
