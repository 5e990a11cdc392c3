import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { asAnotherUser } from "@toolledger/core/testing";

const here = dirname(fileURLToPath(import.meta.url));
export const REPO = join(here, "..", "..", "..");
/** The built CLI, as `pnpm build` leaves it. */
export const CLI = join(REPO, "packages", "cli", "dist", "main.js");
export const SERVERS = join(REPO, "packages", "adapters-mcp", "dist", "servers");
export const ADAPTERS = join(REPO, "packages", "adapters-mcp", "dist", "index.js");

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "toolledger-e2e-"));
}

/** A clean environment: nothing of the developer's own database or deferral settings leaks in. */
export function cleanEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: join(dir, "home"),
    XDG_DATA_HOME: join(dir, "data"),
    ...extra,
  };
}

/** Runs `node dist/main.js …` as a user would, to completion. */
export interface RunOptions {
  cwd: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  /**
   * Run as a user that file permissions apply to: this user, or, when the tests run as root,
   * whom a read-only folder does not stop, `nobody` able to read the checkout wherever it is
   * (`asAnotherUser`).
   */
  unprivileged?: boolean;
}

export function runCli(args: readonly string[], options: RunOptions): Promise<CliResult> {
  return runNode([CLI, ...args], options);
}

export function runNode(args: readonly string[], options: RunOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const [command, commandArgs] = options.unprivileged
      ? asAnotherUser(process.execPath, args)
      : [process.execPath, [...args]];
    const child = spawn(command, commandArgs, {
      cwd: options.cwd,
      env: options.env ?? cleanEnv(options.cwd),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `node ${args.join(" ")} did not finish within ${options.timeoutMs ?? 30_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 30_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
