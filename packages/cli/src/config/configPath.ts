import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { CliError } from "../program/cliError.js";

export const CONFIG_ENV = "TOOLLEDGER_CONFIG";

/** The config file to read: `--config`, else `$TOOLLEDGER_CONFIG`, else goose's own config when it exists. */
export function resolveConfigPath(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  cwd: string,
): string {
  if (flag !== undefined && flag !== "") return resolve(cwd, flag);
  const fromEnv = env[CONFIG_ENV];
  if (fromEnv !== undefined && fromEnv !== "") return resolve(cwd, fromEnv);
  const goose = gooseConfigPath(env, home);
  if (existsSync(goose)) return goose;
  throw new CliError("usage", "no MCP server configuration given", {
    hint: `pass --config <file> (a Claude Desktop / Cursor JSON with "mcpServers", a VS Code mcp.json with "servers", or a goose config.yaml), or set ${CONFIG_ENV}`,
  });
}

/** goose's config file: `$XDG_CONFIG_HOME/goose/config.yaml`, else `~/.config/goose/config.yaml`. */
export function gooseConfigPath(
  env: Readonly<Record<string, string | undefined>>,
  home: string,
): string {
  const configHome =
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== "" ? env.XDG_CONFIG_HOME : join(home, ".config");
  return join(configHome, "goose", "config.yaml");
}
