import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { ALWAYS_LOAD_ENV, DEFERRAL_ENV, nameToKey } from "@toolledger/core";
import { type Document, isMap, LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import {
  FILE_SETTING_NAMES,
  FileSettingsSchema,
  GooseExtensionSchema,
  GooseFileSchema,
  McpServerEntrySchema,
  McpServersFileSchema,
  VsCodeFileSchema,
} from "./_configSchemas.js";
import { type ConfigIssue, type RawServer, readServer } from "./_readServer.js";
import { blankJsonComments } from "./blankJsonComments.js";
import { CliError } from "./cliError.js";
import type { VariableScope } from "./expandVariables.js";
import type { HostConvention, LoadedConfig, ServerConfig } from "./serverConfig.js";

export const CONFIG_ENV = "TOOLLEDGER_CONFIG";

/** What reading a config may consult besides the file: the environment, for `${VAR}` and `env_keys`. */
export interface ConfigContext {
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  cwd: string;
  /** Check the file's structure only: `${…}` stays as written and `env_keys` are not looked up. */
  structureOnly?: boolean;
}

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

/** Reads and validates a config file; every problem is reported with file:line:column and field. */
export function loadConfig(file: string, context: ConfigContext): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new CliError("notFound", `config file ${file} does not exist`, {
        hint: "check the path given to --config",
      });
    }
    throw new CliError("badInput", `cannot read config file ${file}: ${(error as Error).message}`);
  }
  return parseConfig(file, text, context);
}

const NO_CONTEXT: ConfigContext = { env: {}, home: "", cwd: "/" };

export function parseConfig(
  file: string,
  text: string,
  context: ConfigContext = NO_CONTEXT,
): LoadedConfig {
  const lines = new LineCounter();
  const source = file.endsWith(".json") ? checkJsonSyntax(file, text) : text;
  const doc = parseDocument(source, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const first = doc.errors[0];
  if (first) {
    const pos = lines.linePos(first.pos[0]);
    throw new CliError("badInput", `${file}:${pos.line}:${pos.col}: ${firstLine(first.message)}`, {
      hint: "fix the syntax; the file must be JSON or YAML",
    });
  }
  const data: unknown = doc.toJS();
  const at: Locate = {
    value: (path) => position(doc, lines, path),
    key: (path) => keyPosition(doc, lines, path) ?? position(doc, lines, path),
  };
  if (isRecord(data) && "mcpServers" in data) return fromMcpServers(file, data, at, context);
  if (isRecord(data) && "servers" in data) return fromVsCode(file, data, at, context);
  if (isRecord(data) && "extensions" in data) return fromGoose(file, data, at, context);
  throw new CliError(
    "badInput",
    `${file}:1:1: no "mcpServers" object, no "servers" object and no "extensions" map`,
    {
      hint: 'use the Claude Desktop / Cursor format {"mcpServers": {"name": {"command": "…", "args": []}}}, VS Code\'s {"servers": {…}}, or a goose config.yaml with an "extensions:" map',
    },
  );
}

type Position = { line: number; col: number };
interface Locate {
  /** Where the value at `path` starts (a missing field: where its object starts). */
  value: (path: readonly PropertyKey[]) => Position;
  /** Where the key of the last path segment is written. */
  key: (path: readonly PropertyKey[]) => Position;
}

function fromMcpServers(
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

function fromVsCode(
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

function fromGoose(
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

function finish(
  file: string,
  format: LoadedConfig["format"],
  host: HostConvention,
  raw: readonly RawServer[],
  entryIssues: readonly ConfigIssue[],
  data: Record<string, unknown>,
  at: Locate,
  context: ConfigContext,
  fileEnv: Record<string, string>,
): LoadedConfig {
  const issues: ConfigIssue[] = [...entryIssues];
  const warnings: ConfigIssue[] = [];
  const settings = readSettings(data, at, issues, warnings);
  const scope: VariableScope = {
    env: context.env,
    home: context.home,
    workspaceFolder: settings?.workspace_folder ?? workspaceFolder(file),
  };
  const defaults = {
    inheritEnv: settings?.inherit_env ?? host !== "claude-desktop",
    ...(settings?.timeout === undefined ? {} : { callTimeoutSeconds: settings.timeout }),
    ...(settings?.start_timeout === undefined
      ? {}
      : { startTimeoutSeconds: settings.start_timeout }),
    ...(settings?.pinning === undefined ? {} : { pinning: settings.pinning }),
  };
  const secretsFile = format === "goose" ? gooseSecrets(file) : {};
  const read: { server: ServerConfig; path: readonly PropertyKey[] }[] = [];
  for (const entry of raw) {
    const server = readServer(entry, {
      structureOnly: context.structureOnly === true,
      file,
      at,
      scope,
      defaults,
      secretsFile,
      issues,
      warnings,
    });
    if (server) read.push({ server, path: entry.path });
  }
  issues.push(...sameKeyIssues(read, at));
  if (issues.length > 0) throw invalid(file, issues, format);
  return {
    file,
    format,
    host,
    servers: read.map((r) => r.server),
    fileEnv,
    warnings: sortIssues(warnings).map(
      (w) => `${file}:${w.line}:${w.col}: ${w.field}: ${w.message}`,
    ),
  };
}

/** R1: two servers whose names make one key would silently replace each other (R6). */
function sameKeyIssues(
  read: readonly { server: ServerConfig; path: readonly PropertyKey[] }[],
  at: Locate,
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const byKey = new Map<string, ServerConfig>();
  for (const { server, path } of read) {
    if (!server.enabled) continue;
    const key = nameToKey(server.name);
    const issue = (message: string) =>
      issues.push({ ...at.key(path), field: path.map(String).join("."), message });
    if (key === "") {
      issue(
        `the name ${JSON.stringify(server.name)} has no character a key keeps (letters, digits, _ or -): rename it`,
      );
      continue;
    }
    const earlier = byKey.get(key);
    if (earlier) {
      issue(
        `${JSON.stringify(server.name)} and ${JSON.stringify(earlier.name)} (line ${earlier.source.line}) both make the key ${JSON.stringify(key)}, so one would replace the other: rename one of them`,
      );
      continue;
    }
    byKey.set(key, server);
  }
  return issues;
}

function readSettings(
  data: Record<string, unknown>,
  at: Locate,
  issues: ConfigIssue[],
  warnings: ConfigIssue[],
): z.infer<typeof FileSettingsSchema> {
  const value = data.toolledger;
  if (value === undefined) return undefined;
  const parsed = FileSettingsSchema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = ["toolledger", ...issue.path];
      issues.push({
        ...at.value(path),
        field: path.map(String).join("."),
        message: issue.message,
      });
    }
    return undefined;
  }
  if (isRecord(value)) {
    for (const key of Object.keys(value)) {
      if (!FILE_SETTING_NAMES.includes(key)) {
        warnings.push({
          ...at.key(["toolledger", key]),
          field: `toolledger.${key}`,
          message: `unknown setting ${key}; it has no effect (known: ${FILE_SETTING_NAMES.join(", ")})`,
        });
      }
    }
  }
  return parsed.data;
}

/** Claude Desktop passes its servers only HOME, PATH, USER and the like; Cursor and Claude Code pass everything. */
function mcpServersHost(file: string): HostConvention {
  if (basename(file) === "claude_desktop_config.json") return "claude-desktop";
  if (file.includes(`${sep}.cursor${sep}`)) return "cursor";
  return "generic";
}

/** `${workspaceFolder}`: the folder that holds `.vscode/` or `.cursor/`, else the config file's own folder. */
export function workspaceFolder(file: string): string {
  const dir = dirname(file);
  const name = basename(dir);
  return name === ".vscode" || name === ".cursor" ? dirname(dir) : dir;
}

/** goose keeps `env_keys` secrets in the keyring, or in `secrets.yaml` beside its config when the keyring is off. */
function gooseSecrets(file: string): Record<string, string> {
  const path = join(dirname(file), "secrets.yaml");
  if (!existsSync(path)) return {};
  try {
    const data: unknown = parseDocument(readFileSync(path, "utf8")).toJS();
    if (!isRecord(data)) return {};
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(data))
      if (typeof value === "string") out[key] = value;
    return out;
  } catch {
    // An unreadable secrets file is as good as none: the missing key is reported by name.
    return {};
  }
}

function schemaIssues(
  error: z.ZodError,
  at: Locate,
  prefix: readonly PropertyKey[],
): ConfigIssue[] {
  return error.issues.map((issue) => {
    const path = [...prefix, ...issue.path];
    return {
      ...at.value(path),
      field: path.map(String).join(".") || "(top level)",
      message: issue.message,
    };
  });
}

const MAX_ISSUES = 10;

function sortIssues<T extends ConfigIssue>(issues: readonly T[]): T[] {
  return [...issues].sort((a, b) => a.line - b.line || a.col - b.col);
}

function invalid(
  file: string,
  issues: readonly ConfigIssue[],
  format: LoadedConfig["format"],
): CliError {
  const sorted = sortIssues(issues);
  const lines = sorted
    .slice(0, MAX_ISSUES)
    .map((issue) => `${file}:${issue.line}:${issue.col}: ${issue.field}: ${issue.message}`);
  if (sorted.length > MAX_ISSUES) lines.push(`… and ${sorted.length - MAX_ISSUES} more`);
  const unset = sorted.find((i) => i.variable !== undefined)?.variable;
  const hint =
    unset !== undefined
      ? `export ${unset} before starting toolledger (hosts start it with a small environment: put it in the host's "env" for toolledger), or write \${${unset}:-default}`
      : format === "goose"
        ? "each extension needs `type` (stdio, streamable_http, sse, builtin, platform, frontend, inline_python); stdio needs `cmd` (+ `args`, `envs`), streamable_http and sse need `uri` (+ `headers`)"
        : 'each server needs "command" (+ "args", "env") or "url" (+ "headers"; "type": "sse" for legacy SSE servers)';
  return new CliError("badInput", `invalid config:\n${lines.join("\n")}`, { hint });
}

/** The deepest node on `path` that exists (a missing field is reported where its object starts). */
function position(doc: Document, lines: LineCounter, path: readonly PropertyKey[]): Position {
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n) as unknown[], true) as
      | { range?: [number, number, number] }
      | undefined;
    if (node && typeof node === "object" && node.range) return lines.linePos(node.range[0]);
    if (n === 0 && isMap(doc.contents) && doc.contents.range)
      return lines.linePos(doc.contents.range[0]);
  }
  return { line: 1, col: 1 };
}

function keyPosition(
  doc: Document,
  lines: LineCounter,
  path: readonly PropertyKey[],
): Position | undefined {
  const parent = doc.getIn(path.slice(0, -1) as unknown[], true);
  if (!isMap(parent)) return undefined;
  const last = path.at(-1);
  for (const pair of parent.items) {
    const key = pair.key as { value?: unknown; range?: [number, number, number] } | null;
    if (key && key.value === last && key.range) return lines.linePos(key.range[0]);
  }
  return undefined;
}

/**
 * Strict JSON, except comments, which VS Code's and Cursor's files may hold: they are blanked
 * out (keeping every offset, so positions stay true). Returns the text to parse.
 */
function checkJsonSyntax(file: string, text: string): string {
  const source = blankJsonComments(text);
  try {
    JSON.parse(source);
    return source;
  } catch (error) {
    const message = (error as Error).message;
    const at = /position (\d+)/.exec(message);
    let line = 1;
    let col = 1;
    if (at) {
      const offset = Number(at[1]);
      const before = source.slice(0, offset).split("\n");
      line = before.length;
      col = (before.at(-1)?.length ?? 0) + 1;
    }
    throw new CliError(
      "badInput",
      `${file}:${line}:${col}: invalid JSON: ${message.replace(/ in JSON at position \d+.*$/, "")}`,
      { hint: "fix the JSON syntax (trailing commas are not allowed in .json files)" },
    );
  }
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
