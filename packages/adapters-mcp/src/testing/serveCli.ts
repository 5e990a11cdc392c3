// Test fixture: `toolledger serve` (the built CLI, as a user runs it) in front of extension
// configs, reached by the MCP SDK's own client. Kept in src so every test tier shares it;
// nothing here imports vitest. The CLI must be built (`pnpm build`) first.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type {
  ClientOptions,
  JSONRPCMessage,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { ExtensionConfig } from "../extensionConfig.js";

/** The built `toolledger` command. */
export const CLI_MAIN = fileURLToPath(new URL("../../../cli/dist/main.js", import.meta.url));

/** `serve`'s config file format (`mcpServers`, with toolledger's own per-server options). */
export function mcpServersEntry(config: ExtensionConfig): Record<string, unknown> {
  const shared = {
    ...(config.exposeUnprefixed ? { expose_unprefixed: true } : {}),
    ...(config.hidden ? { hidden: true } : {}),
    ...(config.availableTools?.length ? { available_tools: config.availableTools } : {}),
    ...(config.callTimeoutMs ? { timeout: config.callTimeoutMs / 1000 } : {}),
    ...(config.startTimeoutMs ? { start_timeout: config.startTimeoutMs / 1000 } : {}),
  };
  if (config.type === "stdio") {
    return {
      command: config.command,
      args: config.args ?? [],
      ...(config.env ? { env: config.env } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
      ...shared,
    };
  }
  return {
    type: config.type === "sse" ? "sse" : "http",
    url: config.url,
    ...(config.headers ? { headers: config.headers } : {}),
    ...shared,
  };
}

/** A scratch folder with `mcp.json` for `extensions` and a database path beside it. */
export function serveFolder(extensions: ExtensionConfig[]): {
  dir: string;
  config: string;
  db: string;
  remove: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), "toolledger-serve-"));
  const config = join(dir, "mcp.json");
  const mcpServers = Object.fromEntries(extensions.map((e) => [e.name, mcpServersEntry(e)]));
  writeFileSync(config, JSON.stringify({ mcpServers }));
  return {
    dir,
    config,
    db: join(dir, "ledger.db"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** An environment with nothing of the developer's own database or deferral settings. */
export function cleanServeEnv(dir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: join(dir, "home"),
    XDG_DATA_HOME: join(dir, "data"),
  };
}

export interface ServeStdioTransport {
  /** Connect a client with it; serve starts with the client's connection. */
  transport: StdioClientTransport;
  /**
   * Starts serve, waits until every extension is ready, then resolves with a transport to
   * connect a client with: its `initialize` then sees every server (instructions are fixed at
   * the handshake). Use it or `transport`, not both.
   */
  startedWhenReady: (ms?: number) => Promise<Transport>;
  /** Resolves once every extension said it is ready (serve starts them in the background). */
  ready: (ms?: number) => Promise<void>;
  /** What serve wrote on stderr so far. */
  stderr: () => string;
  /** The database serve records to. */
  db: string;
  /** Its scratch folder and config file (for a second serve on the same database). */
  dir: string;
  config: string;
  /** Removes the scratch folder (after the client closed). */
  remove: () => void;
}

/** `toolledger serve --config <extensions> --db <scratch> <flags>` over stdio, for a client to connect. */
export function serveStdioTransport(
  extensions: ExtensionConfig[],
  flags: readonly string[] = [],
): ServeStdioTransport {
  const folder = serveFolder(extensions);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_MAIN, "serve", "--config", folder.config, "--db", folder.db, ...flags],
    env: cleanServeEnv(folder.dir),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString("utf8");
  });
  const ready = (ms = 60_000) =>
    waitForText(
      () => stderr,
      extensions.map((e) => `toolledger: ${e.name} is ready`),
      ms,
    ).catch((error: unknown) => {
      throw new Error(`serve did not get ready: ${String(error)}\nstderr: ${stderr}`);
    });
  return {
    transport,
    startedWhenReady: async (ms) => {
      await transport.start();
      await ready(ms);
      return new AlreadyStarted(transport);
    },
    ready,
    stderr: () => stderr,
    db: folder.db,
    dir: folder.dir,
    config: folder.config,
    remove: folder.remove,
  };
}

export interface ServedOverStdio {
  client: Client;
  /** What serve wrote on stderr so far. */
  stderr: () => string;
  /** The database serve records to. */
  db: string;
  /** Closes the client (serve then stops) and removes the scratch folder. */
  close: () => Promise<void>;
}

/**
 * `serveStdioTransport` connected with an SDK client, once every extension is ready.
 */
export async function serveOverStdio(
  extensions: ExtensionConfig[],
  flags: readonly string[] = [],
  clientOptions: ClientOptions = {},
): Promise<ServedOverStdio> {
  const served = serveStdioTransport(extensions, flags);
  const client = new Client({ name: "sdk-client", version: "1.0.0" }, clientOptions);
  try {
    await client.connect(served.transport);
    await served.ready();
  } catch (error) {
    await client.close().catch(() => undefined);
    served.remove();
    throw error;
  }
  return {
    client,
    stderr: served.stderr,
    db: served.db,
    close: async () => {
      await client.close();
      served.remove();
    },
  };
}

export interface ServeHttpProcess {
  child: ChildProcess;
  url: URL;
  stderr: () => string;
  /** The database serve records to (it stays until `remove`). */
  db: string;
  /** The scratch folder of its config and database. */
  dir: string;
  /** SIGTERM (once), then the exit code. */
  stop: () => Promise<number | null>;
  /** Stops it if it runs, then removes the scratch folder. */
  remove: () => Promise<void>;
}

/** `toolledger serve --http 0 …` in front of `extensions`, once every one of them is ready. */
export async function serveOverHttp(
  extensions: ExtensionConfig[],
  flags: readonly string[] = [],
  readyWithinMs = 60_000,
): Promise<ServeHttpProcess> {
  const folder = serveFolder(extensions);
  const child = spawn(
    process.execPath,
    [CLI_MAIN, "serve", "--http", "0", "--config", folder.config, "--db", folder.db, ...flags],
    { cwd: folder.dir, env: cleanServeEnv(folder.dir), stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  let stdout = "";
  child.stderr!.on("data", (c: Buffer) => {
    stderr += c.toString("utf8");
  });
  child.stdout!.on("data", (c: Buffer) => {
    stdout += c.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    return exited;
  };
  const remove = async () => {
    await stop();
    folder.remove();
  };
  try {
    await waitForText(() => stdout, ["\n"], readyWithinMs);
    await waitForText(
      () => stderr,
      extensions.map((e) => `toolledger: ${e.name} is ready`),
      readyWithinMs,
    );
  } catch (error) {
    await remove();
    throw new Error(`serve --http did not get ready: ${String(error)}\nstderr: ${stderr}`);
  }
  return {
    child,
    url: new URL(stdout.trim()),
    stderr: () => stderr,
    db: folder.db,
    dir: folder.dir,
    stop,
    remove,
  };
}

/** A started transport for `Protocol.connect`, which starts whatever it is given. */
class AlreadyStarted implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  readonly #inner: Transport;
  constructor(inner: Transport) {
    this.#inner = inner;
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => this.onmessage?.(message, extra);
  }
  async start(): Promise<void> {}
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#inner.send(message, options);
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
}

/** Polls `text()` until it holds every one of `parts` (a bound on waiting, not a timing assertion). */
async function waitForText(text: () => string, parts: string[], ms: number): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const now = text();
    const missing = parts.filter((p) => !now.includes(p));
    if (missing.length === 0) return;
    if (Date.now() > end)
      throw new Error(`gave up after ${ms} ms waiting for ${JSON.stringify(missing)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `toolledger <args>` run to its end, as a user runs it. */
export function runCli(
  args: readonly string[],
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_MAIN, ...args], {
      cwd,
      env: cleanServeEnv(cwd),
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
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
