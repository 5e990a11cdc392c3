import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CLI, cleanEnv, SERVERS } from "./spawnCli.js";

/** A shipped test server (packages/adapters-mcp/dist/servers), as a config entry. */
export const shippedServer = (script: string, ...args: string[]) => ({
  command: process.execPath,
  args: [join(SERVERS, `${script}.js`), ...args],
});

const require = createRequire(import.meta.url);

/**
 * A published MCP server installed as a dev dependency (no network), as a config entry run
 * with this Node: `server-everything` (stdio) or `server-memory` (its graph in `dir`).
 */
export function publishedServer(name: "everything" | "memory", dir: string) {
  const pkg = require.resolve(`@modelcontextprotocol/server-${name}/package.json`);
  return {
    command: process.execPath,
    args: [join(dirname(pkg), "dist", "index.js"), ...(name === "everything" ? ["stdio"] : [])],
    ...(name === "memory"
      ? { env: { MEMORY_FILE_PATH: join(dir, `memory-${Date.now()}.jsonl`) } }
      : {}),
  };
}

/** The MCP SDK's own client, connected to the built `toolledger serve`. */
export interface SdkClientOfServe {
  client: Client;
  /** tools/list_changed notifications received so far. */
  changes: () => number;
  /** serve's stderr so far (stdio only; over HTTP, the ServeProcess's). */
  stderr: () => string;
  /** The served tool names, sorted. */
  names: () => Promise<string[]>;
  /** Lists now and after every tools/list_changed until `done` holds; fails after `timeoutMs`. */
  until: (
    done: (names: string[]) => boolean,
    what: string,
    timeoutMs?: number,
  ) => Promise<string[]>;
  close: () => Promise<void>;
}

/** Writes `config` to `dir/mcp.json` and starts `toolledger serve` on it over stdio, as a host does. */
export async function serveOverStdio(
  dir: string,
  config: object,
  args: readonly string[] = [],
): Promise<SdkClientOfServe> {
  const file = join(dir, "mcp.json");
  writeFileSync(file, JSON.stringify(config));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "serve", "--config", file, "--db", join(dir, "s.db"), ...args],
    env: cleanEnv(dir),
    cwd: dir,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString("utf8");
  });
  return connected(transport, () => stderr);
}

/** The SDK's client over streamable HTTP, to a serve started with startServeHttp. */
export async function sdkClientOverHttp(
  url: string,
  stderr: () => string,
): Promise<SdkClientOfServe> {
  return connected(new StreamableHTTPClientTransport(new URL(url)), stderr);
}

async function connected(
  transport: StdioClientTransport | StreamableHTTPClientTransport,
  stderr: () => string,
): Promise<SdkClientOfServe> {
  const client = new Client({ name: "sdk-client", version: "1.0.0" });
  let changes = 0;
  const waiters = new Set<() => void>();
  client.setNotificationHandler("notifications/tools/list_changed", () => {
    changes++;
    for (const w of waiters) w();
  });
  await client.connect(transport);
  // Every page (V3: a long list comes in pages), as a patient client reads it.
  const names = async () => {
    const all: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: 60_000,
      });
      all.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return all.sort();
  };
  const until = (done: (names: string[]) => boolean, what: string, timeoutMs = 20_000) =>
    new Promise<string[]>((resolve, reject) => {
      let last: string[] = [];
      const check = () => {
        names().then((n) => {
          last = n;
          if (!done(n)) return;
          cleanup();
          resolve(n);
        }, fail);
      };
      const fail = (error: unknown) => {
        cleanup();
        reject(error);
      };
      const timer = setTimeout(
        () =>
          fail(
            new Error(
              `gave up waiting for ${what} after ${timeoutMs} ms; last list: ${last.join(", ")}\nserve's stderr:\n${stderr()}`,
            ),
          ),
        timeoutMs,
      );
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  return {
    client,
    changes: () => changes,
    stderr,
    names,
    until,
    close: () => client.close(),
  };
}

/** The text of a tools/call result. */
export function resultText(result: unknown): string {
  const content = ((result as { content?: unknown }).content ?? []) as { text?: string }[];
  return content.map((c) => c.text ?? "").join("");
}
