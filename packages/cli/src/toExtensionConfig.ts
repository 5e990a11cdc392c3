import type { ExtensionConfig } from "@toolledger/adapters-mcp";
import type { ServerConfig } from "./serverConfig.js";

/**
 * The adapter's connection config for a server from a config file; null for goose's
 * `builtin` and `platform` extensions, which live inside goose and have nothing to start.
 */
export function toExtensionConfig(server: ServerConfig): ExtensionConfig | null {
  const common = {
    name: server.name,
    exposeUnprefixed: server.exposeUnprefixed,
    hidden: server.hidden,
    availableTools: server.availableTools,
  };
  if (server.kind === "stdio" && server.command !== undefined) {
    return {
      ...common,
      type: "stdio",
      command: server.command,
      args: server.args,
      env: server.env,
      ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    };
  }
  if (server.kind === "streamable_http" && server.url !== undefined) {
    return { ...common, type: "streamable_http", url: server.url, headers: server.headers };
  }
  return null;
}
