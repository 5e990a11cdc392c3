import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

export const UPSTREAM_SCRIPT = fileURLToPath(new URL("./upstreamServer.js", import.meta.url));
export const SDK_PROXY_SCRIPT = fileURLToPath(new URL("./sdkProxy.js", import.meta.url));
export const BYTE_PIPE_SCRIPT = fileURLToPath(new URL("./bytePipe.js", import.meta.url));

/** bench/dist/mcpClients.js → the built CLI. */
export const CLI = fileURLToPath(new URL("../../packages/cli/dist/main.js", import.meta.url));

/**
 * The node args of `toolledger serve` (the gateway as users run it) for an `mcpServers`
 * config file, recording to `db` (a scratch SQLite file).
 */
export function serveArgs(config: string, db: string, ...flags: string[]): string[] {
  return [CLI, "serve", "--config", config, "--db", db, ...flags];
}

/** Polls `client`'s tools/list until it holds `count` tools: serve starts its servers in the background. */
export async function untilListed(client: Client, count: number, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const listed = (await client.listTools()).tools.length;
    if (listed >= count) return;
    if (Date.now() > end)
      throw new Error(`the gateway listed ${listed} of ${count} tools after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Args that start upstream server `index` with `count` tools. */
export function upstreamArgs(index: number, count: number): string[] {
  return [UPSTREAM_SCRIPT, String(index), String(count)];
}

/** An SDK client connected to a stdio server started with this Node. */
export async function stdioClient(args: string[]): Promise<Client> {
  const client = new Client({ name: "toolledger-bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args, stderr: "ignore" }),
  );
  return client;
}

/** An SDK client connected over streamable HTTP. */
export async function httpClient(url: string): Promise<Client> {
  const client = new Client({ name: "toolledger-bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Latencies (ms) of `n` sequential calls of `fn`. */
export async function latencies(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

/**
 * Runs `a` and `b` in alternating blocks (order flipped every block) until each has made
 * `total` calls; returns every latency of each side.
 */
export async function alternateBlocks(
  total: number,
  block: number,
  a: (i: number) => Promise<unknown>,
  b: (i: number) => Promise<unknown>,
): Promise<{ a: number[]; b: number[] }> {
  const la: number[] = [];
  const lb: number[] = [];
  for (let k = 0; la.length < total; k++) {
    const n = Math.min(block, total - la.length);
    if (k % 2 === 0) {
      la.push(...(await latencies(n, a)));
      lb.push(...(await latencies(n, b)));
    } else {
      lb.push(...(await latencies(n, b)));
      la.push(...(await latencies(n, a)));
    }
  }
  return { a: la, b: lb };
}

/** An SDK client connected over the legacy HTTP+SSE transport (GET for events, POST for messages). */
export async function sseClient(url: string): Promise<Client> {
  const { SSEClientTransport } = await import("@modelcontextprotocol/client");
  const client = new Client({ name: "toolledger-bench", version: "1.0.0" });
  await client.connect(new SSEClientTransport(new URL(url)));
  return client;
}
