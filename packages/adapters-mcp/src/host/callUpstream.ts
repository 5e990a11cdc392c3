import { AdapterError, asAdapterError } from "../adapterError.js";
import type {
  ExtensionConnection,
  RequestLimits,
  ToolCallResult,
  UpstreamMessage,
} from "../connection/extensionConnection.js";

/** How a host reaches an extension's server for one call. */
export interface UpstreamCallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** G1: the server's progress reports; only with it is a progress token sent up. */
  onprogress?: RequestLimits["onprogress"];
  /** G1: the request's other `_meta` entries, passed up as sent. */
  meta?: Record<string, unknown>;
  /** G4: a task-augmented call (`{ ttl? }`): a server that supports it answers with a CreateTaskResult. */
  task?: Record<string, unknown>;
  /** The server's result, told as soon as it arrives, before the call's promise resolves. */
  onResult?: (result: ToolCallResult) => void;
}

/** G1: a notification an extension's server sent, other than tools/list_changed. */
export interface UpstreamNotification extends UpstreamMessage {
  /** The extension's key. */
  extension: string;
}

/** G1: answers a request an extension's server sent (sampling, elicitation). */
export type UpstreamRequestHandler = (
  extension: string,
  request: UpstreamMessage,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

/** What an upstream call needs of its extension: its live connection and its limits. */
export interface UpstreamTarget {
  key: string;
  connection: ExtensionConnection | null;
  /** Why it is not connected, for the error. */
  reason: string | null;
  /** The call timeout (the server's own, else the host's). */
  callTimeoutMs: number;
  /** The liveness ping's timeout. */
  requestTimeoutMs: number;
}

/**
 * Calls `rawName` on an extension's server. A missing or lost connection throws
 * EXTENSION_UNAVAILABLE; timeouts, cancellation and lost connections throw AdapterError. A
 * call that times out or fails in transport starts a liveness probe (handed to `track`).
 */
export async function callUpstream(
  target: UpstreamTarget,
  rawName: string,
  args: Record<string, unknown>,
  options: UpstreamCallOptions,
  track: (probe: Promise<void>) => void,
): Promise<ToolCallResult> {
  const connection = target.connection;
  if (!connection || connection.closed) {
    throw new AdapterError(
      "EXTENSION_UNAVAILABLE",
      `extension ${JSON.stringify(target.key)} is not connected${target.reason ? ` (${target.reason})` : ""}; reconnect it`,
    );
  }
  try {
    return await connection.callTool(
      rawName,
      args,
      {
        timeoutMs: options.timeoutMs ?? target.callTimeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onprogress ? { onprogress: options.onprogress } : {}),
        ...(options.onResult ? { onResult: options.onResult } : {}),
      },
      options.meta,
      options.task,
    );
  } catch (error) {
    const e = asAdapterError(error);
    if (e.code === "REQUEST_TIMEOUT" || (e.code === "PROTOCOL_ERROR" && !e.serverAnswered))
      track(probe(connection, e, target.requestTimeoutMs));
    throw e;
  }
}

/**
 * After a call that timed out or failed in transport: a server that cannot answer a ping
 * either is hung or gone (an HTTP server reports no close); record and drop it.
 */
async function probe(
  connection: ExtensionConnection,
  cause: AdapterError,
  timeoutMs: number,
): Promise<void> {
  try {
    await connection.ping(timeoutMs);
  } catch (error) {
    // A stdio server that exited is reported by the loss handler.
    if (connection.closed) return;
    const e = asAdapterError(error);
    const reason =
      e.code === "REQUEST_TIMEOUT"
        ? `the server stopped responding (${cause.message}; then a ping got no answer within ${timeoutMs} ms); it was stopped, reconnect it`
        : `the server is unreachable (${cause.message}; then the ping failed: ${e.message}); reconnect it`;
    await connection.abandon(reason);
  }
}
