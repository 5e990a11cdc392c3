/** One MCP server ("extension") as read from a config file, before anything is started. */
export interface ServerConfig {
  /** Display name as given (R2); its key is `nameToKey(name)` (R1). */
  name: string;
  kind: "stdio" | "streamable_http" | "builtin" | "platform";
  /** goose's `enabled: false` keeps an extension in the file but out of the session. */
  enabled: boolean;
  command?: string;
  args: string[];
  /** Values are secrets: never printed, never put in an event (R6). */
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  /** Values are secrets, as `env`. */
  headers: Record<string, string>;
  /** R9 allow-list of raw tool names; empty means all. */
  availableTools: string[];
  timeoutSeconds?: number;
  exposeUnprefixed: boolean;
  hidden: boolean;
  /** Where the server was declared, for messages. */
  source: { file: string; line: number };
}

export interface LoadedConfig {
  file: string;
  format: "mcpServers" | "goose";
  servers: ServerConfig[];
  /** Deferral settings found in the file itself (goose keeps `GOOSE_*` keys at the top level). */
  fileEnv: Record<string, string>;
}
