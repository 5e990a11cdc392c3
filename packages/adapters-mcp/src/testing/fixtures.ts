// Test fixtures: configs for the shipped and third-party servers, and small waits.
// Kept in src (not in a test file) so every test tier shares them; nothing here imports vitest.
import { spawn } from "node:child_process";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { filter, firstValueFrom, type Observable, timeout } from "rxjs";
import type { HttpExtensionConfig, StdioExtensionConfig } from "../extensionConfig.js";
import { type ServerName, serverScriptPath } from "../serverScriptPath.js";
import { thirdPartyServerPath } from "./thirdPartyServer.js";

export function shipped(
  name: string,
  server: ServerName,
  args: string[] = [],
  extra: Partial<StdioExtensionConfig> = {},
): StdioExtensionConfig {
  return {
    type: "stdio",
    name,
    command: process.execPath,
    args: [serverScriptPath(server), ...args],
    ...extra,
  };
}

/** `@modelcontextprotocol/server-everything` over stdio (hyphenated tool names). */
export function everything(name = "everything"): StdioExtensionConfig {
  return {
    type: "stdio",
    name,
    command: process.execPath,
    args: [thirdPartyServerPath("server-everything"), "stdio"],
  };
}

/** `@modelcontextprotocol/server-memory`, its graph in `file`. */
export function memory(file: string, name = "memory"): StdioExtensionConfig {
  return {
    type: "stdio",
    name,
    command: process.execPath,
    args: [thirdPartyServerPath("server-memory")],
    env: { MEMORY_FILE_PATH: file },
  };
}

export interface RunningHttpServer {
  config: (name: string, headers?: Record<string, string>) => HttpExtensionConfig;
  url: string;
  stop: () => Promise<void>;
}

/**
 * Starts a shipped streamable-HTTP server on a free loopback port (`http`, or `reference`
 * with `--http`); it prints `listening <url>` once it accepts connections.
 */
export async function startHttpServer(
  server: ServerName = "http",
  args: string[] = ["--port", "0"],
): Promise<RunningHttpServer> {
  return startListening(process.execPath, [serverScriptPath(server), ...args], /listening (\S+)/);
}

/** `@modelcontextprotocol/server-everything` over streamable HTTP on a free loopback port. */
export async function startEverythingHttp(): Promise<RunningHttpServer> {
  const port = await freePort();
  const running = await startListening(
    process.execPath,
    [thirdPartyServerPath("server-everything"), "streamableHttp"],
    /listening on port (\d+)/,
    { PORT: String(port) },
  );
  return {
    ...running,
    url: `http://127.0.0.1:${port}/mcp`,
    config: (name, headers) => ({
      type: "streamable_http",
      name,
      url: `http://127.0.0.1:${port}/mcp`,
      ...(headers ? { headers } : {}),
    }),
  };
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startListening(
  command: string,
  args: string[],
  ready: RegExp,
  env: Record<string, string> = {},
): Promise<RunningHttpServer> {
  const child = spawn(command, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      // A server that is slow to print its address is still started: end it, or it outlives the run.
      child.kill("SIGKILL");
      reject(new Error(`http test server did not start within 10 s; stderr: ${stderr}`));
    }, 10_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      const match = ready.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) =>
      reject(new Error(`http test server exited with ${code}; stderr: ${stderr}`)),
    );
  });
  return {
    url,
    config: (name, headers) => ({
      type: "streamable_http",
      name,
      url,
      ...(headers ? { headers } : {}),
    }),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** The first value of `source` that satisfies `predicate`, or a timeout error naming `what`. */
export function waitFor<T>(
  source: Observable<T>,
  predicate: (value: T) => boolean,
  what: string,
  ms = 10_000,
): Promise<T> {
  return firstValueFrom(
    source.pipe(
      filter(predicate),
      timeout({
        first: ms,
        with: () => Promise.reject(new Error(`timed out after ${ms} ms waiting for ${what}`)),
      }),
    ),
  );
}
