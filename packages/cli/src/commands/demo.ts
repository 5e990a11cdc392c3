import { CliError } from "../cliError.js";
import type { CommandSpec } from "../commandSpec.js";
import type { Deps } from "../deps.js";

export const demoSpec: CommandSpec = {
  name: "demo",
  summary: "(in progress)",
  positionals: [],
  options: [],
  examples: ["toolledger demo"],
};

export async function demoCommand(_args: readonly string[], _deps: Deps): Promise<number> {
  throw new CliError("internal", "demo: not built yet");
}
