import { auditSpec } from "../commands/auditSpec.js";
import { authSpec } from "../commands/authSpec.js";
import { demoSpec } from "../commands/demoSpec.js";
import { doctorSpec } from "../commands/doctorSpec.js";
import { explainSpec } from "../commands/explainSpec.js";
import { exportSpec } from "../commands/exportSpec.js";
import { importSpec } from "../commands/importSpec.js";
import { installSpec, uninstallSpec } from "../commands/installSpec.js";
import { clearSpec, compactSpec } from "../commands/lifecycleSpec.js";
import { approveSpec, diffSpec, pinsSpec, rejectSpec } from "../commands/pinsSpec.js";
import { pruneSpec } from "../commands/pruneSpec.js";
import { replaySpec } from "../commands/replaySpec.js";
import { scrubSpec } from "../commands/scrubSpec.js";
import { serveSpec } from "../commands/serveSpec.js";
import { sessionsSpec } from "../commands/sessionsSpec.js";
import { toolsSpec } from "../commands/toolsSpec.js";
import { viewSpec } from "../commands/viewSpec.js";
import { formatTable } from "../output/formatTable.js";
import { createOutput } from "../output/output.js";
import { usageError } from "./cliError.js";
import { closestNames } from "./closestNames.js";
import type { CommandSpec } from "./commandSpec.js";
import { debugRequested, debugStack } from "./debugStack.js";
import type { Deps } from "./deps.js";
import { EXIT, EXIT_CODE_TABLE } from "./exitCodes.js";
import { toCliError } from "./toCliError.js";

export type CommandFunction = (args: readonly string[], deps: Deps) => Promise<number>;

/**
 * Every command, in the order `--help` lists them. Commands load on first use, so reading
 * a log never loads the MCP SDK or SQLite code it does not need.
 */
export const COMMANDS: readonly { spec: CommandSpec; load: () => Promise<CommandFunction> }[] = [
  { spec: demoSpec, load: async () => (await import("../commands/demo.js")).demoCommand },
  { spec: serveSpec, load: async () => (await import("../commands/serve.js")).serveCommand },
  { spec: toolsSpec, load: async () => (await import("../commands/tools.js")).toolsCommand },
  {
    spec: sessionsSpec,
    load: async () => (await import("../commands/sessions.js")).sessionsCommand,
  },
  { spec: replaySpec, load: async () => (await import("../commands/replay.js")).replayCommand },
  { spec: viewSpec, load: async () => (await import("../commands/view.js")).viewCommand },
  { spec: auditSpec, load: async () => (await import("../commands/audit.js")).auditCommand },
  { spec: explainSpec, load: async () => (await import("../commands/explain.js")).explainCommand },
  { spec: exportSpec, load: async () => (await import("../commands/export.js")).exportCommand },
  { spec: importSpec, load: async () => (await import("../commands/import.js")).importCommand },
  { spec: authSpec, load: async () => (await import("../commands/auth.js")).authCommand },
  { spec: installSpec, load: async () => (await import("../commands/install.js")).installCommand },
  {
    spec: uninstallSpec,
    load: async () => (await import("../commands/uninstall.js")).uninstallCommand,
  },
  { spec: clearSpec, load: async () => (await import("../commands/lifecycle.js")).clearCommand },
  {
    spec: compactSpec,
    load: async () => (await import("../commands/lifecycle.js")).compactCommand,
  },
  { spec: pinsSpec, load: async () => (await import("../commands/pins.js")).pinsCommand },
  { spec: diffSpec, load: async () => (await import("../commands/diff.js")).diffCommand },
  { spec: approveSpec, load: async () => (await import("../commands/review.js")).approveCommand },
  { spec: rejectSpec, load: async () => (await import("../commands/review.js")).rejectCommand },
  { spec: scrubSpec, load: async () => (await import("../commands/scrub.js")).scrubCommand },
  { spec: pruneSpec, load: async () => (await import("../commands/prune.js")).pruneCommand },
  { spec: doctorSpec, load: async () => (await import("../commands/doctor.js")).doctorCommand },
];

/**
 * The whole CLI as a function: argv (without `node` and the script) in, exit code out.
 * Errors are printed to stderr as `toolledger: <what and where>` plus a hint line.
 */
export async function run(argv: readonly string[], deps: Deps): Promise<number> {
  const o = createOutput(deps);
  try {
    const [first, ...rest] = argv;
    if (first === undefined || first === "--help" || first === "-h" || first === "help") {
      const topic = first === "help" ? rest[0] : undefined;
      if (topic !== undefined) return await dispatch(topic, ["--help"], deps);
      o.data(topLevelHelp(o.out.bold));
      return first === undefined ? EXIT.usage : EXIT.ok;
    }
    if (first === "--version" || first === "-V") {
      o.data(deps.version);
      return EXIT.ok;
    }
    return await dispatch(first, rest, deps);
  } catch (error) {
    const e = toCliError(error);
    o.note(`${o.err.red("toolledger:")} ${e.message}`);
    if (e.hint) o.note(`${o.err.dim("hint:")} ${e.hint}`);
    const stack = debugRequested(deps.env) ? debugStack(e) : undefined;
    if (stack !== undefined) o.note(stack);
    return e.exitCode;
  }
}

async function dispatch(name: string, args: readonly string[], deps: Deps): Promise<number> {
  const command = COMMANDS.find((c) => c.spec.name === name);
  if (!command) {
    if (name.startsWith("-"))
      throw usageError(`unknown option ${name} (options go after the command)`);
    const close = closestNames(
      name,
      COMMANDS.map((c) => c.spec.name),
    );
    throw usageError(
      `unknown command ${JSON.stringify(name)}${close.length > 0 ? `; did you mean ${close.join(" or ")}?` : ""}`,
    );
  }
  return (await command.load())(args, deps);
}

export function topLevelHelp(bold: (s: string) => string = (s) => s): string {
  const lines = [
    `${bold("toolledger")} — an event-sourced tool registry and MCP gateway with deferred tool loading`,
    "",
    `${bold("Usage:")} toolledger <command> [options]`,
    "",
    bold("Commands:"),
    // Help is prose the program wrote: shown whole.
    formatTable(
      COMMANDS.map((c) => [`  ${c.spec.name}`, c.spec.summary]),
      { maxCellWidth: Number.POSITIVE_INFINITY },
    ).trimEnd(),
    "",
    bold("Options:"),
    "  -h, --help     help for toolledger or a command (toolledger <command> --help)",
    "  -V, --version  print the version",
    "",
    bold("Environment:"),
    "  TOOLLEDGER_DB                      session database (see --db)",
    "  TOOLLEDGER_CONFIG                  MCP server config for serve, tools, explain --config",
    "  GOOSE_TOOL_DEFERRAL                off (default) or lookup",
    "  GOOSE_TOOL_DEFERRAL_ALWAYS_LOAD    comma-separated public names that stay eager",
    "  NO_COLOR                           no colours even on a terminal",
    "",
    bold("Exit codes:"),
    formatTable(
      EXIT_CODE_TABLE.map((r) => [`  ${r.code}`, r.meaning]),
      { right: [0], maxCellWidth: Number.POSITIVE_INFINITY },
    ).trimEnd(),
    "",
    bold("Examples:"),
    "  $ toolledger demo",
    "  $ toolledger serve --config claude_desktop_config.json --deferral lookup",
    "  $ toolledger replay <session> --to 10",
    "",
  ];
  return lines.join("\n");
}
