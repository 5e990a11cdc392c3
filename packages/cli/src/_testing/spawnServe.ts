import { type ChildProcess, spawn } from "node:child_process";
import { CLI } from "./spawnCli.js";

export interface ServeProcess {
  child: ChildProcess;
  /** The URL `serve --http` printed on stdout. */
  url: URL;
  stderr: () => string;
  /** SIGTERM, then the exit code. */
  stop: () => Promise<number | null>;
}

/** Starts `toolledger serve --http …` as a user would and waits for the URL it prints. */
export async function spawnServeHttp(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, "serve", ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString("utf8");
  });
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      if (out.includes("\n")) resolve(out.trim());
    });
    void closed.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  return {
    child,
    url: new URL(url),
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return closed;
    },
  };
}
