import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A PostgreSQL cluster made for one test or benchmark run, on a loopback port. */
export interface ThrowawayCluster {
  /** `postgres://toolledger:<password>@127.0.0.1:<port>/postgres` (password authentication). */
  url: string;
  port: number;
  /** The cluster's folder (data directory and server log). */
  dir: string;
  /** Stops the server (`immediate`: as if it crashed) and starts it again on the same port. */
  restart(mode?: "fast" | "immediate"): Promise<void>;
  /** Stops the server without removing the cluster. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts a stopped server again. */
  start(): Promise<void>;
  /** Stops the server and removes the folder. */
  remove(): Promise<void>;
}

export interface ThrowawayClusterOptions {
  /** Folder of `initdb` and `pg_ctl`; default: `findPostgresBinaries()`. */
  binDir?: string;
  /** Extra `-c name=value` server settings. */
  settings?: Record<string, string>;
}

/**
 * The PostgreSQL server binaries: `$TOOLLEDGER_PG_BIN`, else the newest
 * `/usr/lib/postgresql/<major>/bin` (Debian, Ubuntu), else null.
 */
export function findPostgresBinaries(env: NodeJS.ProcessEnv = process.env): string | null {
  const fromEnv = env.TOOLLEDGER_PG_BIN;
  if (fromEnv) return existsSync(join(fromEnv, "initdb")) ? fromEnv : null;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const majors = readdirSync(root)
    .filter((d) => /^\d+$/.test(d) && existsSync(join(root, d, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return majors.length > 0 ? join(root, majors[0]!, "bin") : null;
}

/**
 * Creates a cluster in a new temporary folder (initdb; as the unprivileged `postgres` user,
 * or `nobody`, when run as root, since initdb refuses root) and starts it on a free loopback
 * port with password authentication. Throws with the server log's tail when it cannot.
 */
export async function startThrowawayCluster(
  options: ThrowawayClusterOptions = {},
): Promise<ThrowawayCluster> {
  const bin = options.binDir ?? findPostgresBinaries();
  if (bin === null) {
    throw new Error(
      "no PostgreSQL server binaries (initdb, pg_ctl): install postgresql, or set TOOLLEDGER_PG_BIN to their folder",
    );
  }
  const asUser = userInfo().uid === 0 ? unprivilegedUser() : null;
  await reapAbandonedClusters(bin, asUser);
  const dir = mkdtempSync(join(tmpdir(), PREFIX));
  // Who made it: a run killed before its teardown leaves a server the next run stops.
  writeFileSync(join(dir, OWNER), String(process.pid));
  const data = join(dir, "data");
  const log = join(dir, "server.log");
  const password = randomBytes(18).toString("base64url");
  const pwfile = join(dir, "pwfile");
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (asUser) {
    chownSync(dir, asUser.uid, asUser.gid);
    chownSync(pwfile, asUser.uid, asUser.gid);
  }
  chmodSync(dir, 0o700);
  const exec = (file: string, args: string[]) =>
    asUser
      ? run("runuser", ["-u", asUser.name, "--", join(bin, file), ...args], { cwd: dir })
      : run(join(bin, file), args, { cwd: dir });
  try {
    await exec("initdb", [
      "-D",
      data,
      "-U",
      "toolledger",
      `--pwfile=${pwfile}`,
      "--auth=scram-sha-256",
      "--encoding=UTF8",
      "--locale=C",
      "--no-sync",
    ]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${describe(error)}`);
  }
  rmSync(pwfile);
  let port = 0;
  const settings = { listen_addresses: "127.0.0.1", ...options.settings };
  const start = async () => {
    const opts = [
      `-p ${port}`,
      `-k ${dir}`,
      ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`),
    ].join(" ");
    await exec("pg_ctl", ["-D", data, "-l", log, "-o", opts, "-w", "-t", "60", "start"]);
  };
  const stop = async (mode: "fast" | "immediate" = "fast") => {
    await exec("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"]);
  };
  let lastError: unknown;
  // A port found free can be taken before the server binds it: try a few.
  for (let attempt = 0; attempt < 5; attempt++) {
    port = await freePort();
    try {
      await start();
      lastError = undefined;
      break;
    } catch (error) {
      lastError = error;
    }
  }
  if (lastError !== undefined) {
    const tail = serverLogTail(log);
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `the throwaway PostgreSQL server did not start: ${describe(lastError)}\n${tail}`,
    );
  }
  let removed = false;
  return {
    url: `postgres://toolledger:${password}@127.0.0.1:${port}/postgres`,
    port,
    dir,
    start,
    stop,
    async restart(mode = "fast") {
      await stop(mode);
      await start();
    },
    async remove() {
      if (removed) return;
      removed = true;
      try {
        await stop("immediate");
      } catch {
        // Why: already stopped (a test stopped it); the folder goes either way.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const PREFIX = "toolledger-pg-";
const OWNER = "owner.pid";

/**
 * Stops and removes throwaway clusters whose owning process is gone (a test run killed
 * before its teardown, a test that timed out before its `finally`), so they do not pile up.
 */
async function reapAbandonedClusters(bin: string, asUser: { name: string } | null): Promise<void> {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, OWNER), "utf8"));
    } catch {
      continue;
    }
    if (!Number.isInteger(owner) || owner <= 0 || isAlive(owner)) continue;
    const args = ["-D", join(dir, "data"), "-m", "immediate", "-w", "stop"];
    try {
      if (asUser) await run("runuser", ["-u", asUser.name, "--", join(bin, "pg_ctl"), ...args]);
      else await run(join(bin, "pg_ctl"), args);
    } catch {
      // Why: not running any more (or never started); the folder goes either way.
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

function unprivilegedUser(): { name: string; uid: number; gid: number } {
  for (const name of ["postgres", "nobody"]) {
    const entry = passwdEntry(name);
    if (entry) return { name, ...entry };
  }
  throw new Error(
    "running as root, and neither a `postgres` nor a `nobody` user exists to run initdb",
  );
}

function passwdEntry(name: string): { uid: number; gid: number } | null {
  if (!existsSync("/etc/passwd")) return null;
  for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
    const [user, , uid, gid] = line.split(":");
    if (user === name && uid !== undefined && gid !== undefined) {
      return { uid: Number(uid), gid: Number(gid) };
    }
  }
  return null;
}

/** A TCP port free on 127.0.0.1 right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function serverLogTail(log: string): string {
  if (!existsSync(log)) return "(no server log)";
  return readFileSync(log, "utf8").split("\n").slice(-15).join("\n");
}

function describe(error: unknown): string {
  const e = error as { message?: string; stderr?: string };
  return [e.message ?? String(error), e.stderr?.trim()].filter(Boolean).join(": ");
}
