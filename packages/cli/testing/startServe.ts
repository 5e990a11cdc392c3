import { type ChildProcess, spawn } from "node:child_process";
import { CLI, cleanEnv } from "./spawnCli.js";

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  /** SIGTERM, then the exit code. */
  stop: () => Promise<number | null>;
}

/** Starts `toolledger serve --http 0 …` as a user would and waits for the URL it prints. */
export async function startServeHttp(
  args: readonly string[],
  dir: string,
  env: Record<string, string> = cleanEnv(dir),
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, "serve", "--http", "0", ...args], {
    cwd: dir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => {
    stderr += c.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      if (out.includes("\n")) resolve(out.trim());
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  return {
    child,
    url,
    stderr: () => stderr,
    stop: async () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

/** Polls `check` until it holds (or fails after `timeoutMs`, naming `what`). Not a timing assertion: a bound on waiting. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
