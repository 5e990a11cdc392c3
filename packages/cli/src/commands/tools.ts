import { CliError } from "../cliError.js";
import type { CommandSpec } from "../commandSpec.js";
import type { Deps } from "../deps.js";

export const toolsSpec: CommandSpec = {
  name: "tools",
  summary: "(in progress)",
  positionals: [],
  options: [],
  examples: ["toolledger tools"],
};

export async function toolsCommand(_args: readonly string[], _deps: Deps): Promise<number> {
  throw new CliError("internal", "tools: not built yet");
}
