import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from "@modelcontextprotocol/client";
import { AdapterError } from "../adapterError.js";
import type { Redactor } from "../redaction/redactor.js";
import { mib } from "./lineBuffer.js";
import { oversizeOfReply } from "./oversize.js";

/** A server's own error text (an HTTP body, a JSON-RPC error message) quoted in a message. */
const SERVER_TEXT_CHARS = 2000;

/** What a failure message says of the connection it happened on. */
export interface FailureContext {
  /** `extension "notes"`. */
  who: string;
  redactor: Redactor;
  /** Whether the connection is gone, and why it was lost (null: closed by us, or alive). */
  closed: boolean;
  lostReason: string | null;
}

/** A request's failure as an AdapterError whose code says what happened (timeout, cancel, loss, the server's answer). */
export function requestFailure(
  error: unknown,
  method: string,
  limits: { timeoutMs: number; signal?: AbortSignal },
  ctx: FailureContext,
): AdapterError {
  if (error instanceof AdapterError) return error;
  const oversize = oversizeOfReply(error);
  if (oversize) {
    return new AdapterError(
      "MESSAGE_TOO_LARGE",
      `${ctx.who} sent a reply of ${mib(oversize.bytes)} MiB to ${method}, over the limit of ${mib(oversize.limit)} MiB per message; it was dropped and the server stays connected (a host can raise maxMessageBytes; toolledger serve --max-message-mb)`,
      { cause: error },
    );
  }
  if (limits.signal?.aborted)
    return new AdapterError("CANCELLED", `${method} to ${ctx.who} was cancelled`, {
      cause: error,
    });
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return new AdapterError(
      "REQUEST_TIMEOUT",
      `${method} to ${ctx.who} got no answer within ${limits.timeoutMs} ms`,
      { cause: error },
    );
  }
  if ((error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) || ctx.closed) {
    return new AdapterError(
      "CONNECTION_CLOSED",
      `${ctx.who} closed the connection during ${method}${ctx.lostReason ? `: ${ctx.lostReason}` : ""}`,
      { cause: error },
    );
  }
  return new AdapterError(
    "PROTOCOL_ERROR",
    ctx.redactor.redact(`${method} to ${ctx.who} failed: ${serverText(error, ctx.redactor)}`),
    { cause: error, serverAnswered: error instanceof ProtocolError },
  );
}

/** What a server said about a failure: redacted, then cut (an HTTP body may be megabytes). */
export function serverText(error: unknown, redactor: Redactor): string {
  const status = error instanceof SdkHttpError && error.status ? `HTTP ${error.status}: ` : "";
  let text = error instanceof Error ? error.message : String(error);
  // V1: the era probe's HTTP failure keeps the server's answer apart (`initialize` quoted it).
  const body = error instanceof SdkHttpError ? (error.data as { text?: unknown })?.text : undefined;
  if (typeof body === "string" && body !== "" && !text.includes(body)) text += `: ${body}`;
  return status + redactor.head(text, SERVER_TEXT_CHARS);
}
