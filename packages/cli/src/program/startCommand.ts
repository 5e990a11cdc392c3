import { createOutput, type Output } from "../output/output.js";
import {
  booleanOption,
  type CommandSpec,
  type ParsedArgs,
  parseCommandArgs,
  renderHelp,
} from "./commandSpec.js";
import type { Deps } from "./deps.js";

/**
 * Every command's start: its arguments parsed (a usage error thrown for bad ones) and its
 * output made; null when `--help` was given, the help then printed to stdout.
 */
export function startCommand(
  spec: CommandSpec,
  args: readonly string[],
  deps: Deps,
): { parsed: ParsedArgs; o: Output } | null {
  const parsed = parseCommandArgs(spec, args);
  const o = createOutput(deps);
  if (booleanOption(parsed, "help")) {
    o.data(renderHelp(spec, o.out.bold));
    return null;
  }
  return { parsed, o };
}
