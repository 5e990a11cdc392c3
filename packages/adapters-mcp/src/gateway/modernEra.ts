import type { Implementation, ServerContext, ServerOptions } from "@modelcontextprotocol/server";
import {
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  PROTOCOL_VERSION_META_KEY,
} from "@modelcontextprotocol/server";
import type { ToolledgerHost } from "../host/toolledgerHost.js";

/**
 * V1: what the gateway declares to a 2026-07-28 client. As GATEWAY_CAPABILITIES, less what
 * that era has no place for here: `resources.subscribe` (2026 has no `resources/subscribe`;
 * the gateway does not yet feed `resources/updated` into `subscriptions/listen`) and 2025
 * tasks (an extension in 2026, not bridged yet).
 */
export const MODERN_CAPABILITIES = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { listChanged: true },
  completions: {},
  logging: {},
} as const;

/**
 * The request methods a 2026-07-28 client is served over HTTP, per request, from its
 * conversation's handlers (`server/discover` and `subscriptions/listen` are the SDK's own).
 */
export const MODERN_METHODS = [
  "tools/list",
  "tools/call",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "completion/complete",
] as const;

/** The ttl the gateway serves when a source gives no hint of its own (V3, decisions). */
export const DEFAULT_PRIVATE_TTL_MS = 5_000;

type CacheHints = NonNullable<ServerOptions["cacheHints"]>;
type CacheHint = NonNullable<CacheHints["tools/list"]>;

/** A connection that reports its server's own cache hint for a list (a 2026-07-28 upstream). */
interface HintingConnection {
  cacheHint?: (method: string) => CacheHint | undefined;
}

/**
 * V3: the cache hints of a served list, from the upstreams' own. `public` only when every
 * source serving into the list says `public`; the ttl is the shortest any source gives. A
 * source without a hint (a 2025 server: its lists carry none) counts as `private` with
 * DEFAULT_PRIVATE_TTL_MS. With deferral on, `tools/list` changes with the conversation's own
 * `enable_tools` and is `private` with ttl 0.
 */
export function servedCacheHints(host: ToolledgerHost, deferral: boolean): CacheHints {
  const hint = (method: string): CacheHint => {
    let scope: "public" | "private" = "public";
    let ttl = Number.POSITIVE_INFINITY;
    const keys = host.extensions().map((e) => e.key);
    for (const key of keys) {
      const own = (host.connection(key) as HintingConnection | undefined)?.cacheHint?.(method);
      if (own?.cacheScope !== "public") scope = "private";
      ttl = Math.min(ttl, own?.ttlMs ?? DEFAULT_PRIVATE_TTL_MS);
    }
    if (keys.length === 0) scope = "private";
    return {
      cacheScope: scope,
      ttlMs: Number.isFinite(ttl) ? ttl : DEFAULT_PRIVATE_TTL_MS,
    };
  };
  const tools = hint("tools/list");
  return {
    "tools/list": deferral ? { cacheScope: "private", ttlMs: 0 } : tools,
    "prompts/list": hint("prompts/list"),
    "resources/list": hint("resources/list"),
    "resources/templates/list": hint("resources/templates/list"),
    "resources/read": { cacheScope: "private", ttlMs: 0 },
    // The capabilities and instructions change as servers join: what lists change with.
    "server/discover": { ...tools, cacheScope: "private" },
  };
}

/** C5: who a 2026-07-28 request says its client is (its envelope). */
export function envelopeClient(ctx: ServerContext | undefined): {
  client: Implementation | null;
  protocolVersion: string | null;
} {
  const envelope = ctx?.mcpReq.envelope as Record<string, unknown> | undefined;
  const info = envelope?.[CLIENT_INFO_META_KEY] as Implementation | undefined;
  const version = envelope?.[PROTOCOL_VERSION_META_KEY];
  return {
    client: info && typeof info.name === "string" ? info : null,
    protocolVersion: typeof version === "string" ? version : null,
  };
}

/** The log level a 2026-07-28 request asked for (`logLevel` in its envelope); none: no logs. */
export function envelopeLogLevel(ctx: ServerContext | undefined): LoggingLevel | undefined {
  const envelope = ctx?.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[LOG_LEVEL_META_KEY] as LoggingLevel | undefined;
}
