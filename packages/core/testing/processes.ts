import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Spawns a built worker script (child processes run built JS: `pnpm test` builds first),
 * with stdin, stdout and stderr piped.
 */
export function spawnWorker(
  worker: string,
  args: string[],
  env: Record<string, string> = {},
): ChildProcess {
  if (!existsSync(worker)) {
    throw new Error(`${worker} is missing: run \`pnpm build\` before the store's process tests`);
  }
  const child = spawn(process.execPath, [worker, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  closed.set(child, whenClosed(child));
  return child;
}

/** Calls `onLine` for each line the child writes to stdout; collects stderr. */
export function lines(
  child: ChildProcess,
  onLine: (line: string) => void,
): { stderr: () => string } {
  let buffer = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    buffer += chunk;
    let i = buffer.indexOf("\n");
    while (i !== -1) {
      onLine(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
      i = buffer.indexOf("\n");
    }
  });
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => {
    stderr += chunk;
  });
  return { stderr: () => stderr };
}

export function exited(
  child: ChildProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return closed.get(child) ?? whenClosed(child);
}

type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** Workers' ends, watched from spawn on, so `exited` works whenever it is called. */
const closed = new WeakMap<ChildProcess, Promise<Exit>>();

/**
 * Resolves on "close", not "exit": "exit" can come before the child's last stdout chunks
 * are read, and a test that counts acknowledgements would then miss the last ones.
 */
function whenClosed(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => child.once("close", (code, signal) => resolve({ code, signal })));
}

/**
 * `command args` as a user whom file permissions stop, for tests of read-only files and
 * folders. An ordinary user is one already: unchanged. Root is not: under root, the process
 * runs as the owner of this checkout (root, most often) without any capability, through
 * util-linux's `setpriv`. It so reads the checkout's built files wherever the checkout is (a
 * clone inside a 0700 folder too: `nobody` could not), while a folder or file made read-only
 * stops it (an owner could chmod it back; nothing in toolledger chmods).
 */
export function asAnotherUser(command: string, args: readonly string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, [...args]];
  setprivChecked ??= hasSetpriv();
  if (!setprivChecked)
    throw new Error(
      "the tests run as root: a read-only test runs its process without root's capabilities through util-linux's setpriv, which is not on the PATH; install util-linux (Debian: apt-get install util-linux)",
    );
  const owner = statSync(fileURLToPath(import.meta.url));
  return [
    "setpriv",
    [
      `--reuid=${owner.uid}`,
      `--regid=${owner.gid}`,
      "--clear-groups",
      "--inh-caps=-all",
      "--bounding-set=-all",
      command,
      ...args,
    ],
  ];
}

let setprivChecked: boolean | undefined;
function hasSetpriv(): boolean {
  try {
    execFileSync("setpriv", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
