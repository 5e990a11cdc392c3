import { basename, sep } from "node:path";
import { ALWAYS_LOAD_ENV, DEFERRAL_ENV } from "@toolledger/core";
import type { z } from "zod";
import type { ConfigContext } from "./configContext.js";
import { invalid, schemaIssues } from "./configIssues.js";
import {
  GooseExtensionSchema,
  GooseFileSchema,
  McpServerEntrySchema,
  McpServersFileSchema,
  VsCodeFileSchema,
} from "./configSchemas.js";
import { finish } from "./finishConfig.js";
import type { Locate } from "./locate.js";
import type { ConfigIssue, RawServer } from "./readContext.js";
import type { HostConvention, LoadedConfig } from "./serverConfig.js";

/** Claude Desktop, Cursor and Claude Code: `{"mcpServers": {…}}`. */
export function fromMcpServers(
  file: string,
  data: Record<string, unknown>,
  at: Locate,
  context: ConfigContext,
): LoadedConfig {
  const parsed = McpServersFileSchema.safeParse(data);
  if (!parsed.success) throw invalid(file, schemaIssues(parsed.error, at, []), "mcpServers");
  const found = readEntries(parsed.data.mcpServers ?? {}, "mcpServers", McpServerEntrySchema, at);
  const raw = found.entries.map(
    ({ key, entry, value }): RawServer => ({
      format: "mcpServers",
      key,
      path: ["mcpServers", key],
      name: key,
      entry,
      raw: value,
    }),
  );
  return finish(file, "mcpServers", mcpServersHost(file), raw, found.issues, data, at, context, {});
}

/** VS Code: `{"servers": {…}}`. */
export function fromVsCode(
  file: string,
  data: Record<string, unknown>,
  at: Locate,
  context: ConfigContext,
): LoadedConfig {
  const parsed = VsCodeFileSchema.safeParse(data);
  if (!parsed.success) throw invalid(file, schemaIssues(parsed.error, at, []), "vscode");
  const found = readEntries(parsed.data.servers ?? {}, "servers", McpServerEntrySchema, at);
  const raw = found.entries.map(
    ({ key, entry, value }): RawServer => ({
      format: "vscode",
      key,
      path: ["servers", key],
      name: key,
      entry,
      raw: value,
    }),
  );
  return finish(file, "vscode", "vscode", raw, found.issues, data, at, context, {});
}

/** goose: `extensions:` in its config.yaml, with its deferral settings. */
export function fromGoose(
  file: string,
  data: Record<string, unknown>,
  at: Locate,
  context: ConfigContext,
): LoadedConfig {
  const parsed = GooseFileSchema.safeParse(data);
  if (!parsed.success) throw invalid(file, schemaIssues(parsed.error, at, []), "goose");
  // goose writes an extension it forgot as `key: null`.
  const present = Object.fromEntries(
    Object.entries(parsed.data.extensions ?? {}).filter(([, v]) => v !== null),
  );
  const found = readEntries(present, "extensions", GooseExtensionSchema, at);
  const raw = found.entries.map(
    ({ key, entry, value }): RawServer => ({
      format: "goose",
      key,
      path: ["extensions", key],
      name: entry.name ?? key,
      entry,
      raw: value,
    }),
  );
  const fileEnv: Record<string, string> = {};
  const mode = parsed.data[DEFERRAL_ENV];
  const always = parsed.data[ALWAYS_LOAD_ENV];
  if (mode !== undefined) fileEnv[DEFERRAL_ENV] = mode;
  if (always !== undefined) fileEnv[ALWAYS_LOAD_ENV] = always;
  return finish(file, "goose", "goose", raw, found.issues, data, at, context, fileEnv);
}

/** Each entry against its schema on its own, so every bad entry is reported at once. */
function readEntries<S extends z.ZodType>(
  map: Record<string, unknown>,
  field: string,
  schema: S,
  at: Locate,
): { entries: { key: string; entry: z.infer<S>; value: unknown }[]; issues: ConfigIssue[] } {
  const entries: { key: string; entry: z.infer<S>; value: unknown }[] = [];
  const issues: ConfigIssue[] = [];
  for (const [key, value] of Object.entries(map)) {
    const parsed = schema.safeParse(value);
    if (parsed.success) entries.push({ key, entry: parsed.data, value });
    else issues.push(...schemaIssues(parsed.error, at, [field, key]));
  }
  return { entries, issues };
}

/** Claude Desktop passes its servers only HOME, PATH, USER and the like; Cursor and Claude Code pass everything. */
function mcpServersHost(file: string): HostConvention {
  if (basename(file) === "claude_desktop_config.json") return "claude-desktop";
  if (file.includes(`${sep}.cursor${sep}`)) return "cursor";
  return "generic";
}
