export type AdapterErrorCode =
  /** A server could not be started or did not complete the MCP handshake. */
  | "START_FAILED"
  /** A request got no answer within its timeout. */
  | "REQUEST_TIMEOUT"
  /** The caller cancelled the request. */
  | "CANCELLED"
  /** The connection closed (the server exited) before the answer arrived. */
  | "CONNECTION_CLOSED"
  /** The extension has no live connection (it crashed or hung); reconnect it. */
  | "EXTENSION_UNAVAILABLE"
  /** A server's reply was over the message size limit and was dropped (the server stays connected). */
  | "MESSAGE_TOO_LARGE"
  /** A prompts/resources listing repeated a cursor or exceeded the page limit. */
  | "FETCH_GUARD"
  /** The server answered with a JSON-RPC error or a reply that is not MCP. */
  | "PROTOCOL_ERROR"
  /** The core refused a registry command (unknown extension, empty key, …). */
  | "COMMAND_REJECTED"
  /** The event store refused an append (another writer, invalid event). */
  | "APPEND_REJECTED"
  /** The session was closed. */
  | "SESSION_CLOSED"
  /** A4: the server needs OAuth authorization by the user (`authorized` settles when it is done). */
  | "AUTHORIZATION_REQUIRED"
  /** A1/A2: the authorization server refused or could not be reached (a refresh, client credentials). */
  | "AUTHORIZATION_FAILED";

/** Infrastructure failure of the adapters, checked by `code` (domain refusals are values). */
export class AdapterError extends Error {
  readonly code: AdapterErrorCode;
  /**
   * PROTOCOL_ERROR: true when the server answered with a JSON-RPC error (it is alive);
   * START_FAILED: true when it refused the era its config pinned (V1: a restart cannot cure it).
   */
  readonly serverAnswered: boolean;
  /** AUTHORIZATION_REQUIRED only: settles once the server is authorized (never rejects). */
  readonly authorized: Promise<void> | undefined;
  constructor(
    code: AdapterErrorCode,
    message: string,
    options?: { cause?: unknown; serverAnswered?: boolean; authorized?: Promise<void> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AdapterError";
    this.code = code;
    this.serverAnswered = options?.serverAnswered ?? false;
    this.authorized = options?.authorized;
  }
}

/** Any failure as an AdapterError (an unexpected one becomes PROTOCOL_ERROR with its cause). */
export function asAdapterError(error: unknown): AdapterError {
  if (error instanceof AdapterError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new AdapterError("PROTOCOL_ERROR", message, { cause: error });
}
