import { createHash } from "node:crypto";

interface CommonConfig {
  /** Display name (R2); its key (R1) prefixes the tools. */
  name: string;
  /** The kind recorded in ExtensionAdded; defaults to the transport (`stdio`, `streamable_http`). */
  kind?: string;
  exposeUnprefixed?: boolean;
  hidden?: boolean;
  /** Allow-list of raw tool names; empty or absent means all (R9). */
  availableTools?: string[];
}

/** A server started as a child process and spoken to over stdin/stdout. */
export interface StdioExtensionConfig extends CommonConfig {
  type: "stdio";
  command: string;
  args?: string[];
  /** Added to a safe default environment. Values are secrets: only names or hashes leave the adapter. */
  env?: Record<string, string>;
  cwd?: string;
}

/** A server reached over MCP streamable HTTP. */
export interface HttpExtensionConfig extends CommonConfig {
  type: "streamable_http";
  url: string;
  /** Sent with every request. Values are secrets: only names or hashes leave the adapter. */
  headers?: Record<string, string>;
}

export type ExtensionConfig = StdioExtensionConfig | HttpExtensionConfig;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * R6: a fingerprint of everything that identifies the connection. Env and header values
 * enter only through a hash, so the fingerprint can sit in an event and a log.
 */
export function configFingerprint(config: ExtensionConfig): string {
  const secrets = (record: Record<string, string> | undefined) =>
    Object.keys(record ?? {})
      .sort()
      .map((name) => [name, sha256(`${name}=${record![name]}`)]);
  const identity =
    config.type === "stdio"
      ? {
          type: config.type,
          command: config.command,
          args: config.args ?? [],
          cwd: config.cwd ?? null,
          env: secrets(config.env),
        }
      : { type: config.type, url: config.url, headers: secrets(config.headers) };
  return `sha256:${sha256(JSON.stringify(identity))}`;
}

/** A one-line, secret-free description for errors and logs (env and header names only). */
export function describeConfig(config: ExtensionConfig): string {
  if (config.type === "stdio") {
    const env = Object.keys(config.env ?? {});
    const args = (config.args ?? []).map((a) => (/\s/.test(a) ? JSON.stringify(a) : a));
    return `command \`${[config.command, ...args].join(" ")}\`${env.length > 0 ? ` (env: ${env.join(", ")})` : ""}${config.cwd ? ` in ${config.cwd}` : ""}`;
  }
  const headers = Object.keys(config.headers ?? {});
  return `url ${config.url}${headers.length > 0 ? ` (headers: ${headers.join(", ")})` : ""}`;
}
