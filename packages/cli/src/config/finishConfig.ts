import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { nameToKey } from "@toolledger/core";
import { parseDocument } from "yaml";
import type { z } from "zod";
import type { ConfigContext } from "./configContext.js";
import { invalid, sortIssues } from "./configIssues.js";
import { FILE_SETTING_NAMES, FileSettingsSchema } from "./configSchemas.js";
import type { VariableScope } from "./expandVariables.js";
import { isRecord } from "./isRecord.js";
import type { Locate } from "./locate.js";
import type { ConfigIssue, RawServer } from "./readContext.js";
import { readServer } from "./readServer.js";
import type { HostConvention, LoadedConfig, ServerConfig } from "./serverConfig.js";

/**
 * The servers of a file, read in its format, checked together: the `toolledger:` settings,
 * each server (`readServer`), names that make one key (R1); every problem at once.
 */
export function finish(
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
    ...(settings?.startup_grace === undefined
      ? {}
      : { startupGraceSeconds: settings.startup_grace }),
    ...(settings?.pinning === undefined ? {} : { pinning: settings.pinning }),
    ...(settings?.protocol_era === undefined ? {} : { protocolEra: settings.protocol_era }),
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
    ...(settings?.deferral === undefined && settings?.deferral_budget === undefined
      ? {}
      : {
          fileDeferral: {
            ...(settings.deferral === undefined ? {} : { mode: settings.deferral }),
            ...(settings.deferral_budget === undefined ? {} : { budget: settings.deferral_budget }),
          },
        }),
    ...(settings?.call_durability === undefined
      ? {}
      : { callDurability: settings.call_durability as "write-ahead" | "relaxed" }),
    ...(settings?.max_definition_kb === undefined
      ? {}
      : { maxDefinitionBytes: settings.max_definition_kb * 1024 }),
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
