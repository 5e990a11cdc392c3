import type { OAuthSettings } from "@toolledger/adapters-mcp";
import type { PinPolicy } from "@toolledger/core";

/** How a server is reached: started as a process, or over HTTP (streamable or legacy SSE). */
export type ConnectedKind = "stdio" | "streamable_http" | "sse";
/** goose kinds that live inside goose itself: nothing to start, skipped with a note. */
export type InHostKind = "builtin" | "platform" | "frontend" | "inline_python";
export type ServerKind = ConnectedKind | InHostKind;

export const IN_HOST_KINDS: readonly InHostKind[] = [
  "builtin",
  "platform",
  "frontend",
  "inline_python",
];

/** The host whose file this is: its conventions decide what a server inherits. */
export type HostConvention = "claude-desktop" | "cursor" | "vscode" | "goose" | "generic";

/** One MCP server ("extension") as read from a config file, before anything is started. */
export interface ServerConfig {
  /** Display name as given (R2); its key is `nameToKey(name)` (R1). */
  name: string;
  kind: ServerKind;
  /** goose's `enabled: false` (or `disabled: true`) keeps a server in the file but out of the session. */
  enabled: boolean;
  command?: string;
  args: string[];
  /** Values are secrets: never printed, never put in an event (R6). Includes `env_keys` and `envFile`. */
  env: Record<string, string>;
  /** Whether the server starts from the gateway's whole environment, or only HOME, PATH, USER and the like. */
  inheritEnv: boolean;
  cwd?: string;
  url?: string;
  /** Values are secrets, as `env`. */
  headers: Record<string, string>;
  /** A1: the OAuth client settings of a remote server (`oauth`, or Cursor's `auth`). */
  oauth?: OAuthSettings;
  /** R9 allow-list of raw tool names; empty means all. */
  availableTools: string[];
  /** Per-server tool call timeout (seconds), else the file's, else the CLI's default. */
  callTimeoutSeconds?: number;
  /** Per-server start timeout (seconds), else the file's, else the CLI's default. */
  startTimeoutSeconds?: number;
  /** How long a first tools/list waits for it (seconds), else the file's, else the host's default. */
  startupGraceSeconds?: number;
  exposeUnprefixed: boolean;
  hidden: boolean;
  /** P5: `pinning` of the entry, else of the file's `toolledger:` settings; unset: serve's default. */
  pinning?: PinPolicy;
  /**
   * V1: `protocol_era` of the entry, else of the file's `toolledger:` settings; unset: serve's
   * `--protocol-era`, else `auto`.
   */
  protocolEra?: "auto" | "legacy" | "modern";
  /** V1: the entry set `protocol_era` itself (it wins over `--protocol-era`; the file's setting does not). */
  protocolEraOwn?: true;
  /** Values expanded from environment variables into command, args or url: redacted like env values. */
  secrets: string[];
  /** Why this server cannot be started (a missing `env_keys` variable), or undefined. */
  problem?: string;
  /** Where the server was declared, for messages. */
  source: { file: string; line: number };
}

export interface LoadedConfig {
  file: string;
  format: "mcpServers" | "vscode" | "goose";
  host: HostConvention;
  servers: ServerConfig[];
  /** Deferral settings found in the file itself (goose keeps `GOOSE_*` keys at the top level). */
  fileEnv: Record<string, string>;
  /** D1/S1: the `toolledger:` settings' `deferral` and `deferral_budget`, in every format. */
  fileDeferral?: { mode?: string; budget?: number };
  /** L1: the `toolledger:` settings' `call_durability`, in every format. */
  callDurability?: "write-ahead" | "relaxed";
  /** V3: the `toolledger:` settings' `max_definition_kb`, in bytes (absent: the host's default). */
  maxDefinitionBytes?: number;
  /** `file:line: …` lines for options that have no effect (an unknown option, a misspelling). */
  warnings: string[];
}
