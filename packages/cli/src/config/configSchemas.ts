import { ALWAYS_LOAD_ENV, DEFERRAL_ENV, PinPolicySchema } from "@toolledger/core";
import { z } from "zod";

/**
 * V3: the largest cap on one definition, in KiB: the adapters' MAX_DEFINITION_BYTES (kept
 * here as a number so reading a config file loads no adapter; a test keeps the two equal).
 */
export const MAX_DEFINITION_KB = 8064;

const stringMap = z.record(z.string(), z.string());
const pinningPolicy = z.enum(PinPolicySchema.options, {
  error: 'must be "quarantine", "warn" or "off"',
});
const seconds = z.number().positive("must be a positive number of seconds");
/** V1: the protocol era to reach a server in: probe it (`auto`, the default), or pin one. */
export const protocolEra = z.enum(["auto", "legacy", "modern"], {
  error: 'must be "auto", "legacy" or "modern"',
});
// Checked again after `${…}` expansion; a URL with a variable can only be checked then.
const httpUrl = z
  .string()
  .refine((v) => v.includes("${") || isHttpUrl(v), "must be an http:// or https:// URL");

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * A1: a remote server's OAuth client, the same names in every format. Everything is optional:
 * a server that answers 401 is authorized by discovery and dynamic registration alone.
 */
export const OAuthOptionSchema = z
  .object({
    clientId: z.string().min(1, "must be a non-empty client ID").optional(),
    clientSecret: z.string().min(1, "must be a non-empty secret").optional(),
    clientMetadataUrl: z
      .string()
      .refine(
        (v) => v.includes("${") || isClientMetadataUrl(v),
        "must be an https:// URL with a path (a client ID metadata document)",
      )
      .optional(),
    /** A list, or one space-separated string. */
    scopes: z
      .union([z.array(z.string().min(1)), z.string()])
      .transform((v) => (Array.isArray(v) ? v : v.split(/\s+/).filter(Boolean)))
      .optional(),
    callbackPort: z
      .number()
      .int("must be a whole port number")
      .min(1, "must be a port from 1 to 65535")
      .max(65535, "must be a port from 1 to 65535")
      .optional(),
    grant: z
      .enum(["authorization_code", "client_credentials"], {
        error: 'must be "authorization_code" or "client_credentials"',
      })
      .optional(),
    /** A PEM private key (PKCS#8) that signs private_key_jwt client assertions. */
    privateKeyFile: z.string().min(1).optional(),
    signingAlgorithm: z.string().min(1).optional(),
  })
  .loose();
export type OAuthOption = z.infer<typeof OAuthOptionSchema>;
export const OAUTH_OPTION_NAMES = [
  "clientId",
  "clientSecret",
  "clientMetadataUrl",
  "scopes",
  "callbackPort",
  "grant",
  "privateKeyFile",
  "signingAlgorithm",
];

/** An https URL with a path other than `/` (what a client ID metadata document URL must be). */
export function isClientMetadataUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "https:" && url.pathname !== "/";
  } catch {
    return false;
  }
}

/** Cursor's spelling of a static OAuth client (`"auth": {"CLIENT_ID", "CLIENT_SECRET", "scopes"}`). */
export const CursorAuthSchema = z
  .object({
    CLIENT_ID: z.string().min(1).optional(),
    CLIENT_SECRET: z.string().min(1).optional(),
    scopes: z.array(z.string().min(1)).optional(),
  })
  .loose();

/**
 * toolledger's own options, read with the same names and the same effect in every format
 * (a server entry of any host's file may carry them).
 */
export const SharedOptionsSchema = z.object({
  available_tools: z.array(z.string()).default([]),
  expose_unprefixed: z.boolean().default(false),
  hidden: z.boolean().default(false),
  /** Seconds a tool call may take (goose's `timeout`). */
  timeout: seconds.optional(),
  /** Seconds starting the server and its handshake may take. */
  start_timeout: seconds.optional(),
  /** Seconds from its start that a first tools/list waits for the server (issue 20). */
  startup_grace: seconds.optional(),
  /** Names of variables taken from the gateway's environment (goose's `env_keys`). */
  env_keys: z.array(z.string().min(1)).default([]),
  /** Whether the server starts from the gateway's whole environment (default: the host's convention). */
  inherit_env: z.boolean().optional(),
  /** A dotenv file whose variables are added under `env` (VS Code, Cursor). */
  envFile: z.string().min(1).optional(),
  enabled: z.boolean().optional(),
  disabled: z.boolean().optional(),
  cwd: z.string().optional(),
  /** P5: how this server's definitions are pinned: quarantine (default), warn or off. */
  pinning: pinningPolicy.optional(),
  /** A1: the OAuth client of a remote (HTTP or SSE) server. */
  oauth: OAuthOptionSchema.optional(),
  /** V1: `auto` (probe with server/discover, else initialize), `legacy` (2025-11-25) or `modern` (2026-07-28). */
  protocol_era: protocolEra.optional(),
});

export const SHARED_OPTION_NAMES = Object.keys(SharedOptionsSchema.shape);

/** Claude Desktop, Cursor, Claude Code, Windsurf (`mcpServers`) and VS Code (`servers`) entries. */
export const McpServerEntrySchema = SharedOptionsSchema.extend({
  type: z
    .enum(["stdio", "http", "streamable-http", "streamable_http", "sse"], {
      error: 'must be one of "stdio", "http", "sse"',
    })
    .optional(),
  command: z.string().min(1, "must be a non-empty command").optional(),
  args: z.array(z.string()).default([]),
  env: stringMap.default({}),
  url: httpUrl.optional(),
  /** Windsurf's spelling of `url`. */
  serverUrl: httpUrl.optional(),
  headers: stringMap.default({}),
  /** Cursor's static OAuth client, read as `oauth` (clientId, clientSecret, scopes). */
  auth: CursorAuthSchema.optional(),
});
export type McpServerEntry = z.infer<typeof McpServerEntrySchema>;

/** Keys hosts read that mean nothing to a gateway (permissions, UI, watch mode): accepted quietly. */
export const HOST_ONLY_KEYS = [
  "description",
  "autoApprove",
  "alwaysAllow",
  "transportType",
  "dev",
  "gallery",
  "version",
  "bundled",
  "display_name",
  "name",
];

const entries = z.record(z.string(), z.unknown());

/** Each entry is read on its own, so one bad entry does not hide the problems of another. */
export const McpServersFileSchema = z.object({ mcpServers: entries.nullable() });

/** VS Code `.vscode/mcp.json` / user `mcp.json`: `{ "servers": { … }, "inputs": [ … ] }`. */
export const VsCodeFileSchema = z.object({ servers: entries.nullable() });

export const GOOSE_TYPES = [
  "stdio",
  "streamable_http",
  "sse",
  "builtin",
  "platform",
  "frontend",
  "inline_python",
] as const;

/** goose `config.yaml`: `extensions: { key: { type, cmd, args, envs, env_keys, uri, headers, … } }`. */
export const GooseExtensionSchema = SharedOptionsSchema.extend({
  type: z.enum(GOOSE_TYPES, {
    error: `must be one of ${GOOSE_TYPES.map((t) => `"${t}"`).join(", ")}`,
  }),
  name: z.string().optional(),
  cmd: z.string().min(1, "must be a non-empty command").optional(),
  args: z.array(z.string()).default([]),
  envs: stringMap.default({}),
  uri: httpUrl.optional(),
  headers: stringMap.default({}),
});
export type GooseExtension = z.infer<typeof GooseExtensionSchema>;

/** Fields goose writes for its other extension kinds (frontend tools, inline Python). */
export const GOOSE_ONLY_KEYS = [
  "description",
  "bundled",
  "display_name",
  "tools",
  "instructions",
  "code",
  "dependencies",
];

export const GooseFileSchema = z.object({
  extensions: entries.nullable(),
  [DEFERRAL_ENV]: z.string().optional(),
  [ALWAYS_LOAD_ENV]: z.string().optional(),
});

/** Top-level `toolledger:` settings, in any format: defaults for every server of the file. */
export const FileSettingsSchema = z
  .object({
    timeout: seconds.optional(),
    start_timeout: seconds.optional(),
    startup_grace: seconds.optional(),
    inherit_env: z.boolean().optional(),
    /** What `${workspaceFolder}` means (install writes it when it moves a project's servers). */
    workspace_folder: z.string().min(1).optional(),
    /** D1/S1: the deferral mode (`off`, `lookup`, `search`, `auto`), below `--deferral` and the environment. */
    deferral: z
      .string()
      .refine((m) => ["off", "lookup", "search", "auto"].includes(m), {
        message: 'deferral must be "off", "lookup", "search" or "auto"',
      })
      .optional(),
    /** S1: `auto`'s token budget for the deferred-names section. */
    deferral_budget: z.number().int().positive().optional(),
    /** P5: the pinning policy of every server of the file that sets none. */
    pinning: pinningPolicy.optional(),
    /** V1: the protocol era of every server of the file that sets none (below `--protocol-era`). */
    protocol_era: protocolEra.optional(),
    /** L1: `write-ahead` (default) or `relaxed`, below `--call-durability`. */
    call_durability: z
      .string()
      .refine((m) => m === "write-ahead" || m === "relaxed", {
        message: 'call_durability must be "write-ahead" or "relaxed"',
      })
      .optional(),
    /** V3: the largest definition served, in KiB (`serve --max-definition-kb` wins). */
    max_definition_kb: z
      .number()
      .int()
      .min(1)
      .max(MAX_DEFINITION_KB, {
        message: `at most ${MAX_DEFINITION_KB} (KiB): a definition must fit one page of a served list`,
      })
      .optional(),
  })
  .optional();
export const FILE_SETTING_NAMES = [
  "timeout",
  "start_timeout",
  "startup_grace",
  "inherit_env",
  "workspace_folder",
  "deferral",
  "deferral_budget",
  "pinning",
  "protocol_era",
  "call_durability",
  "max_definition_kb",
];
