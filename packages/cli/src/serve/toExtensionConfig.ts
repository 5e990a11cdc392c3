import type { ExtensionConfig } from "@toolledger/adapters-mcp";
import { TOKEN_ENV } from "../commands/serveSpec.js";
import type { ServerConfig } from "../config/serverConfig.js";

/**
 * The adapter's connection config for a server from a config file; null for the kinds that
 * live inside a host (goose's `builtin`, `platform`, `frontend`, `inline_python`), which have
 * nothing to start. `env` is the gateway's own environment, passed on when the host's
 * convention (or `inherit_env`) says so.
 */
export function toExtensionConfig(
  server: ServerConfig,
  env: Readonly<Record<string, string | undefined>>,
): ExtensionConfig | null {
  const common = {
    name: server.name,
    exposeUnprefixed: server.exposeUnprefixed,
    hidden: server.hidden,
    availableTools: server.availableTools,
    ...(server.callTimeoutSeconds === undefined
      ? {}
      : { callTimeoutMs: server.callTimeoutSeconds * 1000 }),
    ...(server.startTimeoutSeconds === undefined
      ? {}
      : { startTimeoutMs: server.startTimeoutSeconds * 1000 }),
    ...(server.startupGraceSeconds === undefined
      ? {}
      : { startupGraceMs: server.startupGraceSeconds * 1000 }),
    ...(server.secrets.length === 0 ? {} : { secrets: server.secrets }),
    ...(server.pinning === undefined ? {} : { pinning: server.pinning }),
    ...(server.protocolEra === undefined ? {} : { protocolEra: server.protocolEra }),
  };
  if (server.kind === "stdio" && server.command !== undefined) {
    return {
      ...common,
      type: "stdio",
      command: server.command,
      args: server.args,
      env: server.env,
      ...(server.inheritEnv ? { baseEnv: definedValues(env) } : {}),
      ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    };
  }
  if ((server.kind === "streamable_http" || server.kind === "sse") && server.url !== undefined) {
    return {
      ...common,
      type: server.kind,
      url: server.url,
      headers: server.headers,
      ...(server.oauth ? { oauth: server.oauth } : {}),
    };
  }
  return null;
}

/** The gateway's environment as a server inherits it: never the gateway's own bearer token. */
function definedValues(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && name !== TOKEN_ENV) out[name] = value;
  return out;
}
