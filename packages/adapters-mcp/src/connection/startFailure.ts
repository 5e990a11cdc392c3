import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { AdapterError } from "../adapterError.js";
import { describeConfig, type ExtensionConfig } from "../extensionConfig.js";
import type { Redactor } from "../redaction/redactor.js";
import { authorizationFailure, type ConnectionAuth } from "./connectionAuth.js";
import { type EraMode, eraMismatch } from "./eraNegotiation.js";
import { serverText } from "./requestFailure.js";
import type { ServerProcess } from "./serverProcess.js";

/**
 * What a start that failed (the server's start or the MCP handshake) is told as: the
 * authorization the server needs (A4), else START_FAILED with why, how the process exited
 * and the end of its stderr, secrets redacted.
 */
export function startFailure(
  error: unknown,
  start: {
    config: ExtensionConfig;
    /** V1: the era the config pinned (a mismatch is said as such). */
    eraMode?: EraMode | undefined;
    startTimeoutMs: number;
    auth: ConnectionAuth | undefined;
    redactor: Redactor;
    process: ServerProcess;
  },
): AdapterError {
  const { config, redactor, process } = start;
  const unauthorized = authorizationFailure(error, start.auth, redactor);
  if (unauthorized) return unauthorized;
  const mismatch = eraMismatch(error, start.eraMode, config.name);
  if (mismatch)
    return new AdapterError("START_FAILED", redactor.redact(mismatch), {
      cause: error,
      serverAnswered: true,
    });
  const why =
    error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout
      ? `the MCP handshake did not complete within ${start.startTimeoutMs} ms`
      : serverText(error, redactor);
  return new AdapterError(
    "START_FAILED",
    redactor.redact(
      `extension ${JSON.stringify(config.name)} (${describeConfig(config)}) did not start: ${why}${process.exitText()}${process.stderrText()}. Check the command or URL and run it by hand to see why.`,
    ),
    { cause: error },
  );
}
