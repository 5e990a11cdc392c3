import type { CliError } from "./cliError.js";
import type { Deps } from "./deps.js";

/** Whether TOOLLEDGER_DEBUG asks for stacks (set, and not empty). */
export function debugRequested(env: Deps["env"]): boolean {
  return (env.TOOLLEDGER_DEBUG ?? "") !== "";
}

/**
 * The stack TOOLLEDGER_DEBUG prints for an error: its cause's (where it was thrown), else,
 * for an unexpected one (a bug), its own. Undefined when there is none worth showing.
 */
export function debugStack(error: CliError): string | undefined {
  if (error.cause instanceof Error && error.cause.stack) return error.cause.stack;
  return error.kind === "internal" ? error.stack : undefined;
}
