import { ProtocolErrorCode, ProtocolError as SdkProtocolError } from "@modelcontextprotocol/server";
import { AdapterError } from "../adapterError.js";
import { Redactor } from "../redaction/redactor.js";

/**
 * JSON-RPC's "request timed out" code, which SDK 1.x sent for a call it gave up on; SDK 2 made
 * its timeout a local `SdkError` with a string code, so the gateway keeps the number itself.
 */
export const REQUEST_TIMEOUT_CODE = -32001;

/**
 * A JSON-RPC error to answer a client with: the SDK sends a thrown error's `code`, `message`
 * and `data` as they are.
 */
export class ProtocolError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "ProtocolError";
    this.code = code;
    this.data = data;
  }
}

/**
 * The server's own JSON-RPC error passes through unchanged but for the secrets of the
 * host's configs (R6: a server echoing a token in an error must not put it in the client's
 * logs); our failures become internal errors that say why.
 */
export function toProtocolError(error: unknown, redactor: Redactor = Redactor.none): ProtocolError {
  if (error instanceof ProtocolError) return error;
  // SDK 2's errors brand-match across its client and server copies; their message is the
  // server's own text (SDK 1 prefixed "MCP error <code>: ", which had to be taken off).
  if (error instanceof SdkProtocolError)
    return new ProtocolError(
      error.code,
      redactor.redact(error.message),
      redactor.redactValue(error.data),
    );
  if (error instanceof AdapterError) {
    const cause = error.cause;
    if (error.code === "PROTOCOL_ERROR" && cause instanceof SdkProtocolError)
      return new ProtocolError(
        cause.code,
        redactor.redact(cause.message),
        redactor.redactValue(cause.data),
      );
    if (error.code === "CANCELLED") return new ProtocolError(REQUEST_TIMEOUT_CODE, error.message);
    return new ProtocolError(ProtocolErrorCode.InternalError, `${error.code}: ${error.message}`);
  }
  return new ProtocolError(ProtocolErrorCode.InternalError, asError(error).message);
}

export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
