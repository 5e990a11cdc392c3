import { parseArgs } from "node:util";
import { usageError } from "./cliError.js";
import { closestNames } from "./closestNames.js";

export interface OptionSpec {
  name: string;
  type: "string" | "boolean";
  short?: string;
  /** Placeholder for the value in help (`<port>`). */
  value?: string;
  /** May be given more than once. */
  multiple?: boolean;
  /** Other long names accepted for it (an earlier spelling), shown in help. */
  aliases?: readonly string[];
  description: string;
}

export interface PositionalSpec {
  name: string;
  required: boolean;
  /** The last positional may take any number of values. */
  multiple?: boolean;
  description: string;
}

/** What `--help` prints and what the parser accepts, declared once per command. */
export interface CommandSpec {
  name: string;
  summary: string;
  /** A paragraph or two under the usage line. */
  description?: string;
  positionals: readonly PositionalSpec[];
  options: readonly OptionSpec[];
  /** Shell lines, each runnable as shown. */
  examples: readonly string[];
}

export const HELP_OPTION: OptionSpec = {
  name: "help",
  type: "boolean",
  short: "h",
  description: "show this help",
};

export const JSON_OPTION: OptionSpec = {
  name: "json",
  type: "boolean",
  description: "print JSON instead of a table",
};

export const DB_OPTION: OptionSpec = {
  name: "db",
  type: "string",
  value: "<file>",
  description:
    "session database (default: $TOOLLEDGER_DB, else $XDG_DATA_HOME/toolledger/sessions.db, else ~/.local/share/toolledger/sessions.db)",
};

export const CONFIG_OPTION: OptionSpec = {
  name: "config",
  type: "string",
  short: "c",
  value: "<file>",
  description:
    "MCP servers: Claude Desktop / Cursor JSON (`mcpServers`), VS Code's mcp.json (`servers`) or goose config.yaml (`extensions:`) (default: $TOOLLEDGER_CONFIG, else goose's own $XDG_CONFIG_HOME/goose/config.yaml or ~/.config/goose/config.yaml when it exists)",
};

export const DEFERRAL_OPTIONS: readonly OptionSpec[] = [
  {
    name: "deferral",
    type: "string",
    value: "<off|lookup|search|auto>",
    description:
      "deferred tool loading: lookup lists the deferred names, search offers search_tools, auto is lookup while the names fit --deferral-budget and search above it (default: $GOOSE_TOOL_DEFERRAL, which takes off or lookup; else the config file's toolledger.deferral; else off)",
  },
  {
    name: "deferral-budget",
    type: "string",
    value: "<tokens>",
    description:
      "auto: the most tokens the deferred-names list may take before search replaces it (default 2000; or the config file's toolledger.deferral_budget)",
  },
  {
    name: "always-load",
    type: "string",
    value: "<names>",
    description:
      "comma-separated public names kept eager (default: $GOOSE_TOOL_DEFERRAL_ALWAYS_LOAD)",
  },
];

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Parses `args` against `spec`; unknown flags, missing values and extra positionals are usage errors. */
export function parseCommandArgs(spec: CommandSpec, args: readonly string[]): ParsedArgs {
  const options: Record<
    string,
    { type: "string" | "boolean"; short?: string; multiple?: boolean }
  > = {};
  for (const o of [...spec.options, HELP_OPTION]) {
    options[o.name] = {
      type: o.type,
      ...(o.short === undefined ? {} : { short: o.short }),
      ...(o.multiple ? { multiple: true } : {}),
    };
    for (const alias of o.aliases ?? [])
      options[alias] = { type: o.type, ...(o.multiple ? { multiple: true } : {}) };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError(
      `${spec.name}: ${describeParseError(error)}${suggestOption(spec, error)}`,
      spec.name,
    );
  }
  const values = parsed.values as ParsedArgs["values"];
  for (const o of spec.options) {
    for (const alias of o.aliases ?? []) {
      if (values[alias] === undefined) continue;
      if (values[o.name] !== undefined)
        throw usageError(`${spec.name}: --${alias} is --${o.name}; give it once`, spec.name);
      values[o.name] = values[alias];
      delete values[alias];
    }
  }
  if (values.help === true) return { values, positionals: parsed.positionals };
  const required = spec.positionals.filter((p) => p.required);
  if (parsed.positionals.length < required.length) {
    const missing = required.slice(parsed.positionals.length).map((p) => `<${p.name}>`);
    throw usageError(`${spec.name}: missing ${missing.join(" ")}`, spec.name);
  }
  if (parsed.positionals.length > spec.positionals.length && !spec.positionals.at(-1)?.multiple) {
    const extra = parsed.positionals.slice(spec.positionals.length);
    throw usageError(`${spec.name}: unexpected argument ${JSON.stringify(extra[0])}`, spec.name);
  }
  return { values, positionals: parsed.positionals };
}

/** `; did you mean --json?` for an unknown long option close to one of the command's. */
function suggestOption(spec: CommandSpec, error: unknown): string {
  if ((error as { code?: unknown }).code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return "";
  const given = /'--([^'=]+)/.exec((error as Error).message)?.[1];
  if (given === undefined) return "";
  const names = [...spec.options, HELP_OPTION].flatMap((o) => [o.name, ...(o.aliases ?? [])]);
  const close = closestNames(given, names);
  return close.length > 0 ? `; did you mean ${close.map((n) => `--${n}`).join(" or ")}?` : "";
}

function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // node:util's messages end with advice about `--` that does not fit a CLI user.
  return message
    .replace(/\. To specify a positional argument.*$/s, "")
    .replace(/^Unknown option/, "unknown option");
}

export function stringOption(parsed: ParsedArgs, name: string): string | undefined {
  const v = parsed.values[name];
  return typeof v === "string" ? v : undefined;
}

export function booleanOption(parsed: ParsedArgs, name: string): boolean {
  return parsed.values[name] === true;
}

/** A non-negative integer option, or a usage error naming the flag and the value. */
export function integerOption(
  parsed: ParsedArgs,
  name: string,
  command: string,
  min = 0,
): number | undefined {
  const raw = stringOption(parsed, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min) {
    throw usageError(
      `${command}: --${name} must be an integer ≥ ${min}, got ${JSON.stringify(raw)}`,
      command,
    );
  }
  return Number(raw);
}

/** The help text of one command: usage, description, arguments, options, examples. */
export function renderHelp(spec: CommandSpec, bold: (s: string) => string = (s) => s): string {
  const args = spec.positionals
    .map((p) => (p.required ? `<${p.name}>` : `[${p.name}${p.multiple ? "…" : ""}]`))
    .join(" ");
  const lines = [
    `${bold("Usage:")} toolledger ${spec.name}${args ? ` ${args}` : ""} [options]`,
    "",
    spec.summary,
  ];
  if (spec.description) lines.push("", spec.description);
  if (spec.positionals.length > 0) {
    lines.push("", bold("Arguments:"));
    const w = Math.max(...spec.positionals.map((p) => p.name.length + 2));
    for (const p of spec.positionals) lines.push(`  ${`<${p.name}>`.padEnd(w)}  ${p.description}`);
  }
  lines.push("", bold("Options:"));
  const opts = [...spec.options, HELP_OPTION].map((o) => ({
    flag: `${o.short ? `-${o.short}, ` : "    "}--${o.name}${o.value ? ` ${o.value}` : ""}`,
    description: `${o.description}${o.aliases?.length ? ` (also ${o.aliases.map((a) => `--${a}`).join(", ")})` : ""}`,
  }));
  const w = Math.max(...opts.map((o) => o.flag.length));
  for (const o of opts) lines.push(`  ${o.flag.padEnd(w)}  ${o.description}`);
  lines.push("", bold("Examples:"));
  for (const e of spec.examples) lines.push(`  $ ${e}`);
  return `${lines.join("\n")}\n`;
}
