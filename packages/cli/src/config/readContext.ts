import type { PinPolicy } from "@toolledger/core";
import type { GooseExtension, McpServerEntry } from "./configSchemas.js";
import type { VariableScope } from "./expandVariables.js";

// What reading one server entry works with (readServer and readOAuth alike): the entry as the
// file's schema read it, where its parts are written, and where problems go.

/** One problem in a config file, where it is. */
export interface ConfigIssue {
  line: number;
  col: number;
  field: string;
  message: string;
  /** The unset variable, when that is the problem (the hint says how to set it). */
  variable?: string;
}

/** A server entry as the file's schema read it, before options and variables are applied. */
export type RawServer = {
  key: string;
  path: readonly PropertyKey[];
  /** The display name: the map key, or goose's `name`. */
  name: string;
  /** The entry as written (for unknown keys). */
  raw: unknown;
} & (
  | { format: "mcpServers" | "vscode"; entry: McpServerEntry }
  | { format: "goose"; entry: GooseExtension }
);

export interface ReadContext {
  /** Variables stay unexpanded and env_keys unresolved (checking a file for another environment). */
  structureOnly: boolean;
  file: string;
  at: {
    value: (path: readonly PropertyKey[]) => { line: number; col: number };
    key: (path: readonly PropertyKey[]) => { line: number; col: number };
  };
  scope: VariableScope;
  defaults: {
    inheritEnv: boolean;
    callTimeoutSeconds?: number;
    startTimeoutSeconds?: number;
    pinning?: PinPolicy;
    startupGraceSeconds?: number;
    protocolEra?: "auto" | "legacy" | "modern";
  };
  /** goose's `secrets.yaml`, where `env_keys` are found when they are not in the environment. */
  secretsFile: Record<string, string>;
  issues: ConfigIssue[];
  warnings: ConfigIssue[];
}
