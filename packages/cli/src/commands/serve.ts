import { CliError } from "../cliError.js";
import type { CommandSpec } from "../commandSpec.js";
import type { Deps } from "../deps.js";

export const serveSpec: CommandSpec = {
  name: "serve",
  summary: "(in progress)",
  positionals: [],
  options: [],
  examples: ["toolledger serve"],
};

export async function serveCommand(_args: readonly string[], _deps: Deps): Promise<number> {
  throw new CliError("internal", "serve: not built yet");
}
