import { createInterface } from "node:readline";
import type { Output } from "../output/output.js";
import { CliError } from "../program/cliError.js";
import type { Deps } from "../program/deps.js";

/** A unified diff on stdout, coloured on a terminal. */
export function printDiff(o: Output, diff: string): void {
  const lines = diff.replace(/\n$/, "").split("\n");
  o.data(
    lines
      .map((line) =>
        line.startsWith("+++") || line.startsWith("---")
          ? o.out.bold(line)
          : line.startsWith("+")
            ? o.out.green(line)
            : line.startsWith("-")
              ? o.out.red(line)
              : line.startsWith("@@")
                ? o.out.cyan(line)
                : line,
      )
      .join("\n"),
  );
}

/**
 * Whether to write the change just shown: `--yes` says so; on a terminal the user is asked;
 * otherwise nothing is written and the command fails, saying how to apply it.
 */
export async function confirmChange(
  deps: Deps,
  o: Output,
  options: { yes: boolean; command: string },
): Promise<boolean> {
  if (options.yes) return true;
  const input = deps.stdio.input as NodeJS.ReadableStream & { isTTY?: boolean };
  if (input.isTTY !== true || !deps.stderr.isTTY) {
    throw new CliError("usage", `${options.command}: nothing written (no terminal to confirm on)`, {
      hint: `review the diff above, then rerun with --yes to apply it (or --dry-run to only show it)`,
    });
  }
  const rl = createInterface({
    input,
    output: { write: (s: string) => deps.stderr.write(s) } as NodeJS.WritableStream,
  });
  try {
    const answer = await new Promise<string>((resolve) =>
      rl.question("Apply this change? [y/N] ", resolve),
    );
    const yes = /^y(es)?$/i.test(answer.trim());
    if (!yes) o.note("nothing written");
    return yes;
  } finally {
    rl.close();
  }
}
