import { EXIT, type ExitCodeName } from "./exitCodes.js";

/**
 * A failure the CLI reports to the user: what was wrong and where (`message`), what to do
 * (`hint`), and which row of the exit-code table it is.
 */
export class CliError extends Error {
  readonly kind: ExitCodeName;
  readonly hint: string | undefined;
  constructor(
    kind: ExitCodeName,
    message: string,
    options: { hint?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CliError";
    this.kind = kind;
    this.hint = options.hint;
  }

  get exitCode(): number {
    return EXIT[this.kind];
  }
}

export function usageError(message: string, command?: string): CliError {
  return new CliError("usage", message, {
    hint: `run \`toolledger ${command ? `${command} ` : ""}--help\` for usage`,
  });
}
