import {
  currentStrategy,
  diagnostics,
  type ListToolsOptions,
  listTools,
  nameToKey,
} from "@toolledger/core";
import { contextTokens, formatContextTokens, TOKENIZER } from "../output/contextTokens.js";
import { formatTable } from "../output/formatTable.js";
import { isWarning } from "../output/isWarning.js";
import { classLabel, toolRow } from "../output/summarizeState.js";
import { CliError } from "../program/cliError.js";
import { booleanOption, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { loadServerSetup } from "../serve/loadServerSetup.js";
import { oauthRuntimeFor } from "../serve/oauthRuntimeFor.js";
import { startSession } from "../serve/startSession.js";
import { toolsSpec } from "./toolsSpec.js";

export async function toolsCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(toolsSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const { config, deferral } = loadServerSetup(
    {
      config: stringOption(parsed, "config"),
      deferral: stringOption(parsed, "deferral"),
      alwaysLoad: stringOption(parsed, "always-load"),
      budget: stringOption(parsed, "deferral-budget"),
    },
    deps,
    "tools",
  );
  const filter: ListToolsOptions = {};
  const extension = stringOption(parsed, "extension");
  const exclude = stringOption(parsed, "exclude");
  if (extension !== undefined) filter.extension = extension;
  if (exclude !== undefined) filter.exclude = exclude;
  if (booleanOption(parsed, "include-hidden")) filter.includeHidden = true;
  // R8/R10: diagnostics naming hidden extensions only with --include-hidden.
  const diagnosticOptions = { includeHidden: filter.includeHidden === true };

  const { session, failures } = await startSession(config, deferral, o, {
    now: deps.now,
    env: deps.env,
    oauth: oauthRuntimeFor(deps, o, config.file, { interactive: false }),
  });
  try {
    const state = session.state;
    const tools = listTools(state, filter).map((t) => ({
      ...toolRow(state, t),
      description: t.raw.description ?? "",
      inputSchema: t.raw.inputSchema,
    }));
    if (booleanOption(parsed, "json")) {
      // D4: the same figure `view` charts and the demo prints, for the registry as a whole.
      const tokens = { tokenizer: TOKENIZER, ...contextTokens(state) };
      o.json({ deferral, tools, tokens, diagnostics: diagnostics(state, diagnosticOptions) });
    } else if (tools.length === 0) {
      o.note(
        `no tools${extension !== undefined ? ` from extension ${JSON.stringify(extension)}` : ""}`,
      );
    } else {
      // D4/S1: the class column whenever deferral is on (auto resolved to lookup or search).
      const lookup = deferral.mode !== "off";
      // R14: the name models are served, shown when any tool has one that differs.
      const renamed = tools.some((t) => t.wireName !== undefined);
      const rows = tools.map((t) => [
        t.name,
        ...(renamed ? [t.wireName ?? t.name] : []),
        t.extension,
        ...(lookup || filter.includeHidden ? [classLabel(t.class, t.reason, o.out)] : []),
        oneLine(t.description, 60),
      ]);
      const header = [
        "TOOL",
        ...(renamed ? ["SERVED AS"] : []),
        "EXTENSION",
        ...(lookup || filter.includeHidden ? ["CLASS"] : []),
        "DESCRIPTION",
      ];
      o.data(formatTable(rows, { header, styleHeader: o.out.bold }));
      const strategy = currentStrategy(state);
      o.note(
        `${tools.length} tool(s); deferral ${deferral.mode}${deferral.mode === "auto" ? ` (${strategy} now)` : ""}`,
      );
      o.note(`model context: ${formatContextTokens(contextTokens(state))}`);
    }
    if (!booleanOption(parsed, "json")) {
      // A server that failed to start was reported above, with its stderr tail; once is enough.
      const reported = new Set(failures.map((f) => nameToKey(f.name)));
      for (const d of diagnostics(state, diagnosticOptions)) {
        if (!isWarning(d) || (d.kind === "fetch_failed" && reported.has(d.extension))) continue;
        o.note(`${o.err.yellow("!")} ${d.message}`);
      }
    }
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
