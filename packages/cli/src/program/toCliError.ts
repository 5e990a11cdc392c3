import { CliError } from "./cliError.js";
import type { ExitCodeName } from "./exitCodes.js";
import {
  describeLoadError,
  driverDirOf,
  nativeModuleFix,
  nativeModuleProblem,
} from "./nativeModuleAdvice.js";

const STORE_CODES: Record<string, ExitCodeName> = {
  STORE_BUSY: "conflict",
  NOT_A_DATABASE: "badInput",
  STORE_CORRUPT: "badInput",
  SCHEMA_TOO_NEW: "badInput",
  IO_ERROR: "badInput",
  STORE_CLOSED: "internal",
  STORE_UNAVAILABLE: "serverFailure",
  STORE_NOT_FOUND: "notFound",
};

const ADAPTER_CODES: Record<string, ExitCodeName> = {
  START_FAILED: "serverFailure",
  REQUEST_TIMEOUT: "serverFailure",
  CONNECTION_CLOSED: "serverFailure",
  EXTENSION_UNAVAILABLE: "serverFailure",
  FETCH_GUARD: "serverFailure",
  MESSAGE_TOO_LARGE: "serverFailure",
  PROTOCOL_ERROR: "serverFailure",
  COMMAND_REJECTED: "badInput",
  APPEND_REJECTED: "conflict",
  SESSION_CLOSED: "internal",
  CANCELLED: "interrupted",
  AUTHORIZATION_REQUIRED: "serverFailure",
  AUTHORIZATION_FAILED: "serverFailure",
};

/**
 * The one place where errors of the other packages meet the exit-code table: infrastructure
 * errors are classes with string codes (STYLE.md), so they are matched by name and code.
 */
export function toCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string") {
      if (error.name === "EventStoreError" && code === "STORE_READ_ONLY") {
        // The store's own advice is in the library's terms (`readOnly`); the hint says it here.
        return new CliError("badInput", storeProblem(error), {
          cause: error,
          hint: "a writing command needs a database it can write: pass --db <a file in a writable folder, or a PostgreSQL primary> (or set TOOLLEDGER_DB); sessions, replay, audit, explain, export and view still read this one",
        });
      }
      if (error.name === "EventStoreError" && code === "SCHEMA_TOO_NEW")
        return new CliError("badInput", error.message, {
          cause: error,
          hint: "a newer toolledger wrote it: upgrade this one (npm i -g toolledger; `toolledger --version` shows which you have), or open it with the toolledger that wrote it; nothing was changed",
        });
      if (error.name === "EventStoreError" && STORE_CODES[code])
        return new CliError(STORE_CODES[code], error.message, { cause: error });
      if (error.name === "AdapterError" && ADAPTER_CODES[code])
        return new CliError(ADAPTER_CODES[code], error.message, { cause: error });
      if (error.name === "EventDecodeError")
        return new CliError("badInput", error.message, { cause: error });
      if (code === "EACCES" || code === "EPERM" || code === "ENOTDIR" || code === "EISDIR") {
        return new CliError("badInput", error.message, {
          cause: error,
          hint: "check the path and its permissions",
        });
      }
      if (code === "EADDRINUSE") {
        return new CliError("serverFailure", error.message, {
          cause: error,
          hint: "pick another port with --http <port>",
        });
      }
    }
    if (
      /Could not locate the bindings file|better_sqlite3\.node|NODE_MODULE_VERSION/.test(
        error.message,
      ) ||
      code === "ERR_DLOPEN_FAILED"
    ) {
      return new CliError(
        "internal",
        `the SQLite driver's native module cannot be loaded: ${describeLoadError(error.message)}`,
        {
          cause: error,
          hint: `${nativeModuleFix(nativeModuleProblem(error.message), driverDirOf(error.message))}; then \`toolledger doctor\` checks it again`,
        },
      );
    }
    return new CliError("internal", `unexpected error: ${error.message}`, {
      cause: error,
      hint: "this is a bug in toolledger; rerun with TOOLLEDGER_DEBUG=1 for the stack and report it",
    });
  }
  return new CliError("internal", `unexpected error: ${String(error)}`);
}

/** An EventStoreError's message without the library's advice (`problem`), else the message. */
export function storeProblem(error: Error): string {
  const problem = (error as { problem?: unknown }).problem;
  return typeof problem === "string" ? problem : error.message;
}
