import { join } from "node:path";
import type { ServersFormat } from "./rewriteServers.js";

export type ClientName = "claude-desktop" | "cursor" | "vscode" | "goose";

/** An agent host `install` can put toolledger into: where its config lives and how it lists servers. */
export interface HostClient {
  name: ClientName;
  label: string;
  aliases: readonly string[];
  format: ServersFormat;
  /** The moved servers' file, in the host's own format (toolledger reads it as it is). */
  serversFileName: string;
  /** The host's user-level config file on this platform. */
  defaultPath(env: Readonly<Record<string, string | undefined>>, home: string): string;
  /** The one server entry that starts the gateway. */
  gatewayEntry(command: string, args: readonly string[]): unknown;
}

const platform = process.platform;

function appData(env: Readonly<Record<string, string | undefined>>, home: string): string {
  if (platform === "darwin") return join(home, "Library", "Application Support");
  if (platform === "win32") return env.APPDATA ?? join(home, "AppData", "Roaming");
  return env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== ""
    ? env.XDG_CONFIG_HOME
    : join(home, ".config");
}

export const HOST_CLIENTS: readonly HostClient[] = [
  {
    name: "claude-desktop",
    label: "Claude Desktop",
    aliases: ["claude", "claude_desktop"],
    format: { kind: "json", key: "mcpServers" },
    serversFileName: "servers.json",
    defaultPath: (env, home) => join(appData(env, home), "Claude", "claude_desktop_config.json"),
    gatewayEntry: (command, args) => ({ command, args }),
  },
  {
    name: "cursor",
    label: "Cursor",
    aliases: [],
    format: { kind: "json", key: "mcpServers" },
    serversFileName: "servers.json",
    defaultPath: (_env, home) => join(home, ".cursor", "mcp.json"),
    gatewayEntry: (command, args) => ({ command, args }),
  },
  {
    name: "vscode",
    label: "VS Code",
    aliases: ["code", "vs-code"],
    format: { kind: "json", key: "servers" },
    serversFileName: "mcp.json",
    defaultPath: (env, home) => join(appData(env, home), "Code", "User", "mcp.json"),
    gatewayEntry: (command, args) => ({ type: "stdio", command, args }),
  },
  {
    name: "goose",
    label: "goose",
    aliases: [],
    format: { kind: "yaml" },
    serversFileName: "config.yaml",
    defaultPath: (env, home) =>
      platform === "win32"
        ? join(
            env.APPDATA ?? join(home, "AppData", "Roaming"),
            "Block",
            "goose",
            "config",
            "config.yaml",
          )
        : join(
            env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== ""
              ? env.XDG_CONFIG_HOME
              : join(home, ".config"),
            "goose",
            "config.yaml",
          ),
    gatewayEntry: (command, args) => ({
      args: [...args],
      cmd: command,
      description: "toolledger: your MCP servers behind one recorded gateway",
      enabled: true,
      envs: {},
      name: "toolledger",
      timeout: 300,
      type: "stdio",
    }),
  },
];

/** The client a user named (`claude`, `vscode`, …), or undefined. */
export function findHostClient(name: string): HostClient | undefined {
  const n = name.toLowerCase();
  return HOST_CLIENTS.find((c) => c.name === n || c.aliases.includes(n));
}

/** The name of the gateway's own entry in a host's config. */
export const GATEWAY_ENTRY_NAME = "toolledger";
