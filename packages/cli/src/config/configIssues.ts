import type { z } from "zod";
import { CliError } from "../program/cliError.js";
import type { Locate } from "./locate.js";
import type { ConfigIssue } from "./readContext.js";
import type { LoadedConfig } from "./serverConfig.js";

export function schemaIssues(
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

export function sortIssues<T extends ConfigIssue>(issues: readonly T[]): T[] {
  return [...issues].sort((a, b) => a.line - b.line || a.col - b.col);
}

export function invalid(
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
