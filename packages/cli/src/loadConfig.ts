import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ALWAYS_LOAD_ENV, DEFERRAL_ENV } from "@toolledger/core";
import { type Document, isMap, LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import { CliError } from "./cliError.js";
import type { LoadedConfig, ServerConfig } from "./serverConfig.js";

export const CONFIG_ENV = "TOOLLEDGER_CONFIG";

const stringMap = z.record(z.string(), z.string());

/** Claude Desktop and Cursor: `{ "mcpServers": { name: { command, args, env } | { url, headers } } }`. */
const McpServerEntrySchema = z
  .looseObject({
    type: z.enum(["stdio", "http", "streamable-http", "streamable_http", "sse"]).optional(),
    command: z.string().min(1, "must be a non-empty command").optional(),
    args: z.array(z.string()).default([]),
    env: stringMap.default({}),
    cwd: z.string().optional(),
    url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional(),
    headers: stringMap.default({}),
    disabled: z.boolean().default(false),
  })
  .superRefine((entry, ctx) => {
    if (entry.type === "sse") {
      ctx.addIssue({
        code: "custom",
        path: ["type"],
        message:
          'SSE transport is not supported; use "stdio" (command) or "http" (url, streamable HTTP)',
      });
    } else if (entry.command === undefined && entry.url === undefined) {
      ctx.addIssue({
        code: "custom",
        path: [],
        message: 'needs "command" (a stdio server) or "url" (a streamable HTTP server)',
      });
    } else if (entry.command !== undefined && entry.url !== undefined) {
      ctx.addIssue({ code: "custom", path: ["url"], message: 'give "command" or "url", not both' });
    }
  });

const McpServersFileSchema = z.looseObject({
  mcpServers: z.record(z.string(), McpServerEntrySchema),
});

/** goose `config.yaml`: `extensions: { key: { type, cmd, args, envs, uri, headers, enabled, available_tools, timeout } }`. */
const GooseExtensionSchema = z
  .looseObject({
    type: z.enum(["stdio", "streamable_http", "builtin", "platform"], {
      error: 'must be one of "stdio", "streamable_http", "builtin", "platform"',
    }),
    name: z.string().optional(),
    enabled: z.boolean().default(true),
    cmd: z.string().min(1, "must be a non-empty command").optional(),
    args: z.array(z.string()).default([]),
    envs: stringMap.default({}),
    cwd: z.string().optional(),
    uri: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional(),
    headers: stringMap.default({}),
    available_tools: z.array(z.string()).default([]),
    timeout: z.number().positive("must be a positive number of seconds").optional(),
    hidden: z.boolean().default(false),
    expose_unprefixed: z.boolean().default(false),
  })
  .superRefine((ext, ctx) => {
    if (ext.type === "stdio" && ext.cmd === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["cmd"],
        message: 'a stdio extension needs "cmd" (the command to start)',
      });
    }
    if (ext.type === "streamable_http" && ext.uri === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["uri"],
        message: 'a streamable_http extension needs "uri" (http:// or https://)',
      });
    }
  });

const GooseFileSchema = z.looseObject({
  extensions: z.record(z.string(), GooseExtensionSchema.nullable()).nullable(),
  [DEFERRAL_ENV]: z.string().optional(),
  [ALWAYS_LOAD_ENV]: z.string().optional(),
});

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
  const configHome =
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== "" ? env.XDG_CONFIG_HOME : join(home, ".config");
  const goose = join(configHome, "goose", "config.yaml");
  if (existsSync(goose)) return goose;
  throw new CliError("usage", "no MCP server configuration given", {
    hint: `pass --config <file> (a Claude Desktop / Cursor JSON with "mcpServers", or a goose config.yaml), or set ${CONFIG_ENV}`,
  });
}

/** Reads and validates a config file; every problem is reported with file:line:column and field. */
export function loadConfig(file: string): LoadedConfig {
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
  return parseConfig(file, text);
}

export function parseConfig(file: string, text: string): LoadedConfig {
  const lines = new LineCounter();
  if (file.endsWith(".json")) checkJsonSyntax(file, text);
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const first = doc.errors[0];
  if (first) {
    const pos = lines.linePos(first.pos[0]);
    throw new CliError("badInput", `${file}:${pos.line}:${pos.col}: ${firstLine(first.message)}`, {
      hint: "fix the syntax; the file must be JSON or YAML",
    });
  }
  const data: unknown = doc.toJS();
  const where = (path: readonly PropertyKey[]) => position(doc, lines, path);
  const declared = (path: readonly PropertyKey[]) => keyPosition(doc, lines, path) ?? where(path);
  if (isRecord(data) && "mcpServers" in data) return fromMcpServers(file, data, where, declared);
  if (isRecord(data) && "extensions" in data) return fromGoose(file, data, where, declared);
  throw new CliError("badInput", `${file}:1:1: no "mcpServers" object and no "extensions" map`, {
    hint: 'use the Claude Desktop / Cursor format {"mcpServers": {"name": {"command": "…", "args": []}}} or a goose config.yaml with an "extensions:" map',
  });
}

type Where = (path: readonly PropertyKey[]) => { line: number; col: number };

function fromMcpServers(file: string, data: unknown, where: Where, declared: Where): LoadedConfig {
  const parsed = McpServersFileSchema.safeParse(data);
  if (!parsed.success) throw invalid(file, parsed.error, where, "mcpServers");
  const servers: ServerConfig[] = [];
  for (const [name, e] of Object.entries(parsed.data.mcpServers)) {
    servers.push({
      name,
      kind: e.command !== undefined ? "stdio" : "streamable_http",
      enabled: !e.disabled,
      ...(e.command === undefined ? {} : { command: e.command }),
      args: e.args,
      env: e.env,
      ...(e.cwd === undefined ? {} : { cwd: e.cwd }),
      ...(e.url === undefined ? {} : { url: e.url }),
      headers: e.headers,
      availableTools: [],
      exposeUnprefixed: false,
      hidden: false,
      source: { file, line: declared(["mcpServers", name]).line },
    });
  }
  return { file, format: "mcpServers", servers, fileEnv: {} };
}

function fromGoose(file: string, data: unknown, where: Where, declared: Where): LoadedConfig {
  const parsed = GooseFileSchema.safeParse(data);
  if (!parsed.success) throw invalid(file, parsed.error, where, "goose");
  const servers: ServerConfig[] = [];
  for (const [key, e] of Object.entries(parsed.data.extensions ?? {})) {
    if (e === null) continue;
    servers.push({
      name: e.name ?? key,
      kind: e.type,
      enabled: e.enabled,
      ...(e.cmd === undefined ? {} : { command: e.cmd }),
      args: e.args,
      env: e.envs,
      ...(e.cwd === undefined ? {} : { cwd: e.cwd }),
      ...(e.uri === undefined ? {} : { url: e.uri }),
      headers: e.headers,
      availableTools: e.available_tools,
      ...(e.timeout === undefined ? {} : { timeoutSeconds: e.timeout }),
      exposeUnprefixed: e.expose_unprefixed,
      hidden: e.hidden,
      source: { file, line: declared(["extensions", key]).line },
    });
  }
  const fileEnv: Record<string, string> = {};
  const mode = parsed.data[DEFERRAL_ENV];
  const always = parsed.data[ALWAYS_LOAD_ENV];
  if (mode !== undefined) fileEnv[DEFERRAL_ENV] = mode;
  if (always !== undefined) fileEnv[ALWAYS_LOAD_ENV] = always;
  return { file, format: "goose", servers, fileEnv };
}

const MAX_ISSUES = 10;

function invalid(
  file: string,
  error: z.ZodError,
  where: Where,
  format: "mcpServers" | "goose",
): CliError {
  const located = error.issues.map((issue) => ({ issue, pos: where(issue.path) }));
  located.sort((a, b) => a.pos.line - b.pos.line || a.pos.col - b.pos.col);
  const lines = located.slice(0, MAX_ISSUES).map(({ issue, pos }) => {
    const field = issue.path.map(String).join(".") || "(top level)";
    return `${file}:${pos.line}:${pos.col}: ${field}: ${issue.message}`;
  });
  if (error.issues.length > MAX_ISSUES)
    lines.push(`… and ${error.issues.length - MAX_ISSUES} more`);
  const hint =
    format === "goose"
      ? "each extension needs `type` (stdio, streamable_http, builtin, platform); stdio needs `cmd` (+ `args`, `envs`), streamable_http needs `uri` (+ `headers`)"
      : 'each server needs "command" (+ "args", "env") or "url" (+ "headers")';
  return new CliError("badInput", `invalid config:\n${lines.join("\n")}`, { hint });
}

/** The deepest node on `path` that exists (a missing field is reported where its object starts). */
function position(
  doc: Document,
  lines: LineCounter,
  path: readonly PropertyKey[],
): { line: number; col: number } {
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

/** Where the key of the last path segment is written (the line a server is declared on). */
function keyPosition(
  doc: Document,
  lines: LineCounter,
  path: readonly PropertyKey[],
): { line: number; col: number } | undefined {
  const parent = doc.getIn(path.slice(0, -1) as unknown[], true);
  if (!isMap(parent)) return undefined;
  const last = path.at(-1);
  for (const pair of parent.items) {
    const key = pair.key as { value?: unknown; range?: [number, number, number] } | null;
    if (key && key.value === last && key.range) return lines.linePos(key.range[0]);
  }
  return undefined;
}

function checkJsonSyntax(file: string, text: string): void {
  try {
    JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const at = /position (\d+)/.exec(message);
    let line = 1;
    let col = 1;
    if (at) {
      const offset = Number(at[1]);
      const before = text.slice(0, offset).split("\n");
      line = before.length;
      col = (before.at(-1)?.length ?? 0) + 1;
    }
    throw new CliError(
      "badInput",
      `${file}:${line}:${col}: invalid JSON: ${message.replace(/ in JSON at position \d+.*$/, "")}`,
      {
        hint: "fix the JSON syntax (trailing commas and comments are not allowed in .json files)",
      },
    );
  }
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
