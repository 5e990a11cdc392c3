import type { FetchLike, Transport } from "@modelcontextprotocol/client";
import { SSEClientTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { ExtensionConfig } from "../extensionConfig.js";

export interface TransportOptions {
  /** Largest message read from a stdio server. */
  maxMessageBytes: number;
  /** A1–A4: an HTTP or SSE server's fetch, which carries its OAuth bearer token. */
  fetch?: FetchLike;
}

/**
 * The SDK client transport that reaches an extension's server: a child process over stdio
 * (its stderr piped, for crash reports), or streamable HTTP / legacy SSE with the config's
 * headers (and, for OAuth, a fetch that carries the token). Nothing is started yet.
 */
export function openTransport(config: ExtensionConfig, options: TransportOptions): Transport {
  if (config.type === "stdio") {
    return new StdioClientTransport({
      command: config.command,
      ...(config.args ? { args: config.args } : {}),
      // The SDK adds its safe subset of this process's environment underneath.
      ...(config.env || config.baseEnv ? { env: { ...config.baseEnv, ...config.env } } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
      stderr: "pipe",
      maxBufferSize: options.maxMessageBytes,
    });
  }
  const requestInit = config.headers ? { headers: config.headers } : undefined;
  const init = {
    ...(requestInit ? { requestInit } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  return config.type === "sse"
    ? new SSEClientTransport(new URL(config.url), init)
    : new StreamableHTTPClientTransport(new URL(config.url), init);
}
