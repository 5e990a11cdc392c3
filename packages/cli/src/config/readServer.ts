import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  GOOSE_ONLY_KEYS,
  HOST_ONLY_KEYS,
  isHttpUrl,
  SHARED_OPTION_NAMES,
} from "./configSchemas.js";
import { expandVariables } from "./expandVariables.js";
import { parseEnvFile } from "./parseEnvFile.js";
import type { RawServer, ReadContext } from "./readContext.js";
import { readOAuth } from "./readOAuth.js";
import { IN_HOST_KINDS, type ServerConfig, type ServerKind } from "./serverConfig.js";

const MCP_SERVER_KEYS = ["type", "command", "args", "env", "url", "serverUrl", "headers", "auth"];
const GOOSE_KEYS = ["type", "name", "cmd", "args", "envs", "uri", "headers"];

/** What a key of one format is called in the other (a misspelling worth a hint). */
const SPELLINGS: Record<string, Record<string, string>> = {
  mcpServers: { cmd: "command", envs: "env", uri: "url", endpoint: "url" },
  vscode: { cmd: "command", envs: "env", uri: "url", endpoint: "url" },
  goose: { command: "cmd", env: "envs", url: "uri", serverUrl: "uri" },
};

/**
 * One server of any format, the same way: options, `${…}` variables in command, args, env,
 * url, headers, cwd and envFile, `env_keys`, unknown keys. Problems go to `context.issues`
 * (the file is refused) or `context.warnings` (an option without effect); returns null when
 * the entry cannot become a server.
 */
export function readServer(server: RawServer, context: ReadContext): ServerConfig | null {
  const { entry, path } = server;
  const issuesBefore = context.issues.length;
  const secrets: string[] = [];
  const issue = (field: readonly PropertyKey[], message: string, variable?: string) =>
    context.issues.push({
      ...context.at.value([...path, ...field]),
      field: [...path, ...field].map(String).join("."),
      message,
      ...(variable === undefined ? {} : { variable }),
    });
  // A disabled server is not started: its variables need not be set.
  const enabled = entry.enabled ?? !(entry.disabled ?? false);
  const expand = (value: string, field: readonly PropertyKey[]): string => {
    if (context.structureOnly) return value;
    const result = expandVariables(value, context.scope);
    if (!result.ok) {
      if (!enabled) return value;
      issue(field, result.message, result.variable.startsWith("$") ? undefined : result.variable);
      return value;
    }
    secrets.push(...result.secrets);
    return result.value;
  };
  const expandMap = (record: Record<string, string>, field: string) =>
    Object.fromEntries(
      Object.entries(record).map(([name, value]) => [name, expand(value, [field, name])]),
    );

  warnUnknownKeys(server, context);

  const kind = kindOf(server);
  if (kind === null) {
    if (server.format !== "goose") {
      const e = server.entry;
      if (e.command === undefined && (e.url ?? e.serverUrl) === undefined)
        issue(
          [],
          `needs "command" (a stdio server) or "url" (an HTTP server)${spellingHint(server, ["command", "url"])}`,
        );
      else issue(["url"], 'give "command" or "url", not both');
    }
    return null;
  }
  const commandField = server.format === "goose" ? "cmd" : "command";
  const urlField =
    server.format === "goose" ? "uri" : server.entry.serverUrl !== undefined ? "serverUrl" : "url";
  const rawCommand = server.format === "goose" ? server.entry.cmd : server.entry.command;
  const rawUrl =
    server.format === "goose" ? server.entry.uri : (server.entry.url ?? server.entry.serverUrl);
  const envField = server.format === "goose" ? "envs" : "env";
  const rawEnv = server.format === "goose" ? server.entry.envs : server.entry.env;

  if (kind === "stdio" && rawCommand === undefined) {
    issue(
      [commandField],
      (server.format === "goose"
        ? 'a stdio extension needs "cmd" (the command to start)'
        : 'a stdio server needs "command"') + spellingHint(server, [commandField]),
    );
  }
  if ((kind === "streamable_http" || kind === "sse") && rawUrl === undefined) {
    issue(
      [urlField],
      (server.format === "goose"
        ? `a ${kind} extension needs "uri" (http:// or https://)`
        : `an ${kind === "sse" ? "SSE" : "HTTP"} server needs "url" (http:// or https://)`) +
        spellingHint(server, server.format === "goose" ? ["uri"] : ["url", "serverUrl"]),
    );
  }
  const inHost = (IN_HOST_KINDS as readonly string[]).includes(kind);

  const command = rawCommand === undefined ? undefined : expand(rawCommand, [commandField]);
  const args = entry.args.map((arg, i) => expand(arg, ["args", i]));
  const url = rawUrl === undefined ? undefined : expand(rawUrl, [urlField]);
  if (
    url !== undefined &&
    !inHost &&
    !isHttpUrl(url) &&
    !(context.structureOnly && url.includes("${"))
  )
    issue([urlField], "must be an http:// or https:// URL");
  const cwd = entry.cwd === undefined ? undefined : expand(entry.cwd, ["cwd"]);
  const headers = expandMap(entry.headers, "headers");
  const env: Record<string, string> = {};
  if (entry.envFile !== undefined && !context.structureOnly) {
    // Relative to the workspace folder, as VS Code reads it.
    const envFile = resolve(context.scope.workspaceFolder, expand(entry.envFile, ["envFile"]));
    Object.assign(
      env,
      readEnvFile(envFile, (message) => issue(["envFile"], message)),
    );
  }
  Object.assign(env, expandMap(rawEnv, envField));

  // goose: env_keys come from its secret store (the environment first); the entry's own env wins.
  let problem: string | undefined;
  for (const key of entry.env_keys) {
    if (key in env || context.structureOnly) continue;
    const value = context.scope.env[key] ?? context.secretsFile[key];
    if (value !== undefined) {
      env[key] = value;
      continue;
    }
    const line = context.at.value([...path, "env_keys"]).line;
    if (enabled)
      problem ??= `${server.name} (${context.file}:${line}): env_keys names ${key}, which is not set in toolledger's environment${server.format === "goose" ? " nor in goose's secrets.yaml (goose may keep it in the system keyring, which toolledger cannot read)" : ""}; export ${key} before starting toolledger, or put it under ${envField}`;
  }

  const oauth = readOAuth(server, context, kind, expand, issue);
  if (context.issues.length > issuesBefore) return null;
  const line = context.at.key(path).line;
  const timeout = entry.timeout ?? context.defaults.callTimeoutSeconds;
  const startTimeout = entry.start_timeout ?? context.defaults.startTimeoutSeconds;
  const pinning = entry.pinning ?? context.defaults.pinning;
  const protocolEra = entry.protocol_era ?? context.defaults.protocolEra;
  const startupGrace = entry.startup_grace ?? context.defaults.startupGraceSeconds;
  return {
    name: server.name,
    kind,
    enabled,
    ...(command === undefined ? {} : { command }),
    args,
    env,
    inheritEnv: entry.inherit_env ?? context.defaults.inheritEnv,
    ...(cwd === undefined ? {} : { cwd }),
    ...(url === undefined ? {} : { url }),
    headers,
    ...(oauth === undefined ? {} : { oauth }),
    availableTools: entry.available_tools,
    ...(timeout === undefined ? {} : { callTimeoutSeconds: timeout }),
    ...(startTimeout === undefined ? {} : { startTimeoutSeconds: startTimeout }),
    ...(startupGrace === undefined ? {} : { startupGraceSeconds: startupGrace }),
    exposeUnprefixed: entry.expose_unprefixed,
    hidden: entry.hidden,
    ...(pinning === undefined ? {} : { pinning }),
    ...(protocolEra === undefined ? {} : { protocolEra }),
    ...(entry.protocol_era === undefined ? {} : { protocolEraOwn: true }),
    secrets: [...new Set(secrets)],
    ...(problem === undefined ? {} : { problem }),
    source: { file: context.file, line },
  };
}

function kindOf(server: RawServer): ServerKind | null {
  if (server.format === "goose") return server.entry.type;
  const e = server.entry;
  const url = e.url ?? e.serverUrl;
  switch (e.type) {
    case "stdio":
      return "stdio";
    case "sse":
      return "sse";
    case "http":
    case "streamable-http":
    case "streamable_http":
      return "streamable_http";
  }
  if (e.command !== undefined && url !== undefined) return null;
  if (e.command !== undefined) return "stdio";
  if (url === undefined) return null;
  // Without a type, an endpoint that ends in /sse is a legacy SSE server (the usual convention).
  return /\/sse\/?$/.test(url.split(/[?#]/)[0] ?? "") ? "sse" : "streamable_http";
}

/**
 * `; it has "cmd": did you mean "command"?` when the entry spells a missing key the way
 * another format does (a goose `cmd` in a JSON file), else nothing.
 */
function spellingHint(server: RawServer, wanted: readonly string[]): string {
  if (typeof server.raw !== "object" || server.raw === null) return "";
  const spellings = SPELLINGS[server.format] ?? {};
  const found = Object.keys(server.raw).filter((k) => wanted.includes(spellings[k] ?? ""));
  return found.length === 0
    ? ""
    : `; it has ${found.map((k) => `"${k}": did you mean "${spellings[k]}"?`).join(" ")}`;
}

function warnUnknownKeys(server: RawServer, context: ReadContext): void {
  if (typeof server.raw !== "object" || server.raw === null) return;
  const own = server.format === "goose" ? GOOSE_KEYS : MCP_SERVER_KEYS;
  const quiet = server.format === "goose" ? GOOSE_ONLY_KEYS : HOST_ONLY_KEYS;
  const known = new Set([...own, ...SHARED_OPTION_NAMES, ...quiet]);
  for (const key of Object.keys(server.raw)) {
    if (known.has(key)) continue;
    const suggestion =
      SPELLINGS[server.format]?.[key] ?? closest(key, [...own, ...SHARED_OPTION_NAMES]);
    context.warnings.push({
      ...context.at.key([...server.path, key]),
      field: [...server.path, key].map(String).join("."),
      message: `unknown option ${key}; it has no effect${suggestion ? ` (did you mean ${suggestion}?)` : ""}`,
    });
  }
}

/** A known option within a small edit distance, ignoring case, `_` and `-` (`availableTools` → `available_tools`). */
function closest(key: string, options: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[_-]/g, "");
  const k = norm(key);
  let best: { option: string; distance: number } | undefined;
  for (const option of options) {
    const distance = editDistance(k, norm(option));
    if (distance <= 2 && (best === undefined || distance < best.distance))
      best = { option, distance };
  }
  return best?.option;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

function readEnvFile(path: string, fail: (message: string) => void): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    fail(`cannot read envFile ${path}: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
    return {};
  }
  const parsed = parseEnvFile(text);
  if (!parsed.ok) {
    fail(`envFile ${path}:${parsed.line}: ${parsed.message}`);
    return {};
  }
  return parsed.env;
}
