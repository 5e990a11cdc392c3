import { createHash } from "node:crypto";
import { type OAuthSettings, oauthSecretValues } from "./oauth/oauthSettings.js";

interface CommonConfig {
  /** Display name (R2); its key (R1) prefixes the tools. */
  name: string;
  /** The kind recorded in ExtensionAdded; defaults to the transport (`stdio`, `streamable_http`). */
  kind?: string;
  exposeUnprefixed?: boolean;
  hidden?: boolean;
  /** Allow-list of raw tool names; empty or absent means all (R9). */
  availableTools?: string[];
  /** This server's tool call timeout (default: the session's). Not part of the fingerprint. */
  callTimeoutMs?: number;
  /** How long starting this server and its handshake may take (default: the session's). Not part of the fingerprint. */
  startTimeoutMs?: number;
  /** P5: how this server's definitions are pinned (default: the host's). Not part of the fingerprint. */
  pinning?: "quarantine" | "warn" | "off";
  /**
   * V1: the protocol era to reach this server in: `auto` (default: probe with server/discover,
   * else initialize), `legacy` (2025-11-25, no probe) or `modern` (2026-07-28, no fallback).
   * Not part of the fingerprint.
   */
  protocolEra?: "auto" | "legacy" | "modern";
  /**
   * How long from its start a first tools/list waits for this server (a host's
   * `untilListed`; default: the host's `startupGraceMs`). Not part of the fingerprint.
   */
  startupGraceMs?: number;
  /**
   * Further secret values to redact from every message (values of variables expanded into the
   * command, args or URL). Env and header values are redacted anyway.
   */
  secrets?: string[];
}

/** A server started as a child process and spoken to over stdin/stdout. */
export interface StdioExtensionConfig extends CommonConfig {
  type: "stdio";
  command: string;
  args?: string[];
  /** Added to `baseEnv`. Values are secrets: only names or hashes leave the adapter. */
  env?: Record<string, string>;
  /**
   * The environment the server starts from, before `env` (a host's convention: goose and Cursor
   * pass their whole environment). Default: the MCP SDK's safe subset of this process's
   * environment (HOME, LOGNAME, PATH, SHELL, TERM, USER), as Claude Desktop does. Not part of
   * the fingerprint and not printed.
   */
  baseEnv?: Record<string, string>;
  cwd?: string;
}

/** A server reached over MCP streamable HTTP, or over the legacy HTTP+SSE transport (`sse`). */
export interface HttpExtensionConfig extends CommonConfig {
  type: "streamable_http" | "sse";
  url: string;
  /** Sent with every request. Values are secrets: only names or hashes leave the adapter. */
  headers?: Record<string, string>;
  /** A1: the OAuth client settings (a server that answers 401 is authorized without any). */
  oauth?: OAuthSettings;
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
      : {
          type: config.type,
          url: config.url,
          headers: secrets(config.headers),
          // Another OAuth client is another identity; an unchanged config keeps its fingerprint.
          ...(config.oauth ? { oauth: oauthIdentity(config.oauth) } : {}),
        };
  return `sha256:${sha256(JSON.stringify(identity))}`;
}

function oauthIdentity(o: OAuthSettings): Record<string, unknown> {
  return {
    clientId: o.clientId ?? null,
    clientSecret: o.clientSecret ? sha256(`clientSecret=${o.clientSecret}`) : null,
    privateKey: o.privateKey ? sha256(`privateKey=${o.privateKey}`) : null,
    clientMetadataUrl: o.clientMetadataUrl ?? null,
    scopes: o.scopes ?? null,
    grant: o.grant ?? null,
  };
}

/** A one-line, secret-free description for errors and logs (env and header names only). */
export function describeConfig(config: ExtensionConfig): string {
  if (config.type === "stdio") {
    const env = Object.keys(config.env ?? {});
    const args = (config.args ?? []).map((a) => (/\s/.test(a) ? JSON.stringify(a) : a));
    return redactSecrets(
      `command \`${[config.command, ...args].join(" ")}\`${env.length > 0 ? ` (env: ${env.join(", ")})` : ""}${config.cwd ? ` in ${config.cwd}` : ""}`,
      config.secrets,
    );
  }
  const headers = Object.keys(config.headers ?? {});
  return redactSecrets(
    `${config.type === "sse" ? "SSE url" : "url"} ${config.url}${headers.length > 0 ? ` (headers: ${headers.join(", ")})` : ""}`,
    config.secrets,
  );
}

/** Every secret value of a config: env or header values and the expanded `secrets`. */
export function secretValues(config: ExtensionConfig): string[] {
  const own = Object.values((config.type === "stdio" ? config.env : config.headers) ?? {});
  const oauth = config.type === "stdio" ? [] : oauthSecretValues(config.oauth);
  return [...own, ...oauth, ...(config.secrets ?? [])];
}

function redactSecrets(text: string, secrets: readonly string[] | undefined): string {
  let out = text;
  // Longest first, so a secret that contains another is redacted whole.
  for (const secret of [...(secrets ?? [])].sort((a, b) => b.length - a.length))
    if (secret.length >= 4) out = out.replaceAll(secret, "[redacted]");
  return out;
}
