import { classifyTool, diagnostics, type ListToolsOptions, listTools } from "@toolledger/core";
import { CliError } from "../cliError.js";
import {
  booleanOption,
  CONFIG_OPTION,
  type CommandSpec,
  DEFERRAL_OPTIONS,
  JSON_OPTION,
  parseCommandArgs,
  renderHelp,
  stringOption,
} from "../commandSpec.js";
import type { Deps } from "../deps.js";
import { EXIT } from "../exitCodes.js";
import { formatTable } from "../formatTable.js";
import { loadConfig, resolveConfigPath } from "../loadConfig.js";
import { createOutput } from "../output.js";
import { resolveDeferral } from "../resolveDeferral.js";
import { startSession } from "../startSession.js";
import { classLabel } from "../summarizeState.js";

export const toolsSpec: CommandSpec = {
  name: "tools",
  summary: "Connect to the configured servers and print the aggregated registry.",
  description:
    "Starts every enabled server of the config file, fetches their tools and prints them by public name\n(<extension key>__<tool>). With --deferral lookup the CLASS column says which tools the model gets in full\n(eager) and which by name only (deferred). Servers that fail to start are reported with their command and\nstderr; the command then exits with 6 after printing what the others offer.",
  positionals: [],
  options: [
    CONFIG_OPTION,
    {
      name: "extension",
      type: "string",
      short: "e",
      value: "<name>",
      description: "only this extension's tools (name or key)",
    },
    {
      name: "exclude",
      type: "string",
      short: "x",
      value: "<name>",
      description: "leave out this extension's tools",
    },
    {
      name: "include-hidden",
      type: "boolean",
      description: "also list hidden extensions' tools (R8)",
    },
    ...DEFERRAL_OPTIONS,
    JSON_OPTION,
  ],
  examples: [
    "toolledger tools --config claude_desktop_config.json",
    "toolledger tools --config ~/.config/goose/config.yaml --deferral lookup --always-load github__create_issue",
    "toolledger tools -c mcp.json --extension notes --json",
  ],
};

export async function toolsCommand(args: readonly string[], deps: Deps): Promise<number> {
  const parsed = parseCommandArgs(toolsSpec, args);
  const o = createOutput(deps);
  if (booleanOption(parsed, "help")) {
    o.data(renderHelp(toolsSpec, o.out.bold));
    return EXIT.ok;
  }
  const config = loadConfig(
    resolveConfigPath(stringOption(parsed, "config"), deps.env, deps.home, deps.cwd),
  );
  const deferral = resolveDeferral(
    { deferral: stringOption(parsed, "deferral"), alwaysLoad: stringOption(parsed, "always-load") },
    deps.env,
    config.fileEnv,
    "tools",
  );
  const filter: ListToolsOptions = {};
  const extension = stringOption(parsed, "extension");
  const exclude = stringOption(parsed, "exclude");
  if (extension !== undefined) filter.extension = extension;
  if (exclude !== undefined) filter.exclude = exclude;
  if (booleanOption(parsed, "include-hidden")) filter.includeHidden = true;

  const { session, failures } = await startSession(config, deferral, o, { now: deps.now });
  try {
    const state = session.state;
    const tools = listTools(state, filter).map((t) => {
      const c = classifyTool(state, t);
      return {
        name: t.publicName,
        extension: t.owner,
        rawName: t.rawName,
        class: c.class,
        ...(c.reason === undefined ? {} : { reason: c.reason }),
        description: t.tool.description ?? "",
        inputSchema: t.tool.inputSchema,
      };
    });
    if (booleanOption(parsed, "json")) {
      o.json({ deferral, tools, diagnostics: diagnostics(state) });
    } else if (tools.length === 0) {
      o.note(
        `no tools${extension !== undefined ? ` from extension ${JSON.stringify(extension)}` : ""}`,
      );
    } else {
      const lookup = deferral.mode === "lookup";
      const rows = tools.map((t) => [
        t.name,
        t.extension,
        ...(lookup || filter.includeHidden ? [classLabel(t.class, t.reason, o.out)] : []),
        oneLine(t.description, 60),
      ]);
      const header = [
        "TOOL",
        "EXTENSION",
        ...(lookup || filter.includeHidden ? ["CLASS"] : []),
        "DESCRIPTION",
      ];
      o.data(formatTable(rows, { header, styleHeader: o.out.bold }));
      o.note(`${tools.length} tool(s); deferral ${deferral.mode}`);
    }
    if (!booleanOption(parsed, "json"))
      for (const d of diagnostics(state)) o.note(`${o.err.yellow("!")} ${d.message}`);
  } finally {
    await session.close();
  }
  if (failures.length > 0) {
    throw new CliError(
      "serverFailure",
      `${failures.length} server(s) failed to start: ${failures.map((f) => f.name).join(", ")}`,
      {
        hint: "the errors above name each command and its stderr; run the command by hand to see why",
      },
    );
  }
  return EXIT.ok;
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
