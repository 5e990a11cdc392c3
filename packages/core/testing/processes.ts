import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";

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
  return spawn(process.execPath, [worker, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
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
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
}
