import { ProtocolError, ProtocolErrorCode, SdkErrorCode, SdkError } from "@modelcontextprotocol/server";
import { AdapterError } from "../adapterError.js";
import { Redactor } from "../redaction/redactor.js";

/**
 * A JSON-RPC error to answer a client with: the SDK sends a thrown error's `code`, `message`
 * and `data` as they are (an McpError's message already carries an "MCP error <code>:" prefix,
 * which the client's SDK would add a second time).
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
  if (error instanceof ProtocolError)
    return new ProtocolError(
      error.code,
      redactor.redact(stripPrefix(error.message)),
      redactor.redactValue(error.data),
    );
  if (error instanceof AdapterError) {
    const cause = error.cause;
    if (error.code === "PROTOCOL_ERROR" && cause instanceof ProtocolError)
      return new ProtocolError(
        cause.code,
        redactor.redact(stripPrefix(cause.message)),
        redactor.redactValue(cause.data),
      );
    if (error.code === "CANCELLED")
      return new SdkError(SdkErrorCode.RequestTimeout, error.message);
    return new ProtocolError(ProtocolErrorCode.InternalError, `${error.code}: ${error.message}`);
  }
  return new ProtocolError(ProtocolErrorCode.InternalError, asError(error).message);
}

/** McpError prefixes "MCP error <code>: "; the client adds it again. */
function stripPrefix(message: string): string {
  return message.replace(/^MCP error -?\d+: /, "");
}

export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
