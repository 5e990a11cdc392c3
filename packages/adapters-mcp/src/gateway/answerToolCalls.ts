import { CallToolResultSchema } from "@modelcontextprotocol/core";
import type {
  CallToolRequest,
  CallToolResult,
  CreateTaskResult,
  JSONRPCMessage,
  Notification,
  Request,
  RequestId,
  RequestMethod,
  RequestOptions,
  Server,
  StandardSchemaV1,
  Transport,
} from "@modelcontextprotocol/server";
import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
} from "@modelcontextprotocol/server";
import { armAbortSlot } from "../connection/abortSlots.js";
import { beforeClose, interceptMessages } from "../connection/sdkPatches.js";
import type { DownstreamExtra } from "./downstreamPeer.js";
import { isPlainRequest } from "./isPlainRequest.js";

/** What answers a client's `tools/call` on either path (a task-augmented call: its task, G4). */
export type ToolCallHandler = (
  params: CallToolRequest["params"],
  extra: DownstreamExtra,
) => Promise<CallToolResult | CreateTaskResult>;

/** A `tools/call` request the direct path takes: valid as the SDK checks it, without `_meta` or `task`. */
interface PlainToolCall {
  jsonrpc: "2.0";
  id: RequestId;
  method: "tools/call";
  params: { name: string; arguments?: Record<string, unknown> };
}

/**
 * Answers a client's plain `tools/call` (no `_meta`, no `task`) straight from the transport,
 * without the SDK's per-request dispatch, and lets everything else through to the SDK server
 * as before. Issue 20 (bench 5a): the SDK's dispatch (three schema parses to classify the
 * message, two more of the request, one of the result, a chain of promises and a dozen
 * closures) cost the gateway about as much per call as all of its own work; a bare SDK proxy
 * pays it too, so the gateway's recording could not fit within the hop a proxy adds.
 *
 * The outcome is the SDK's (2.4, legacy era), point by point: the request is one the SDK's schemas accept
 * (anything else goes to the SDK, which answers it as it always did); the handler gets a
 * context whose signal a client's `notifications/cancelled` or the transport's close aborts,
 * and whose `ctx.mcpReq.notify`/`send` (and the helpers on them) are tied to the request
 * (`relatedRequestId`); the result is
 * checked against `CallToolResultSchema` and sent as parsed (a result that fails is the SDK's
 * InvalidParams error); a thrown error is answered with its `code` when it is an integer
 * (else InternalError) and its message and data; nothing is sent for a cancelled request.
 * A server's result is sent the moment it is read (the handler's `ctx.answerNow`, which the
 * call's chain passes down to the request), checked as above, before the call's own chain of
 * awaits and its recording run (bench 5a: that chain was 40 µs of the 217 µs the gateway's
 * own code took per call, measured in a slow spell of the machine); the handler's answer is
 * then not sent again, and a failure after it goes to `onerror`.
 * Unnecessary when: a bare SDK proxy's added latency per call (bench 5a's baseline) falls to
 * what this path costs. Installed after `server.connect(transport)`, through the message and
 * close wraps in `connection/sdkPatches.ts`; without the SDK's `onmessage` in place (a future
 * SDK), nothing is wrapped and the SDK answers every call.
 */
export function answerToolCalls(
  server: Server,
  transport: Transport,
  handle: ToolCallHandler,
): void {
  const running = new Map<RequestId, AbortController>();
  // The next call's controller, its signal and the one abort listener its upstream request
  // uses (`abortSlots.ts`), made once the previous call is answered: Node makes a signal when
  // it is first read, and its first listener, at a few microseconds each that would otherwise
  // sit between the client's request and the server's.
  let spare: AbortController | null = null;
  const makeSpare = (): void => {
    spare ??= new AbortController();
    armAbortSlot(spare.signal);
  };

  const answer = (request: PlainToolCall): void => {
    const id = request.id;
    const controller = spare ?? new AbortController();
    spare = null;
    running.set(id, controller);
    const signal = controller.signal;
    const sendFailed = (error: unknown) =>
      server.onerror?.(new Error(`Failed to send response: ${error}`));
    // Answered with the server's result as it arrived (`answerNow`): nothing is sent after it.
    let answered = false;
    const send = ((r: Request, schemaOrOptions?: unknown, maybeOptions?: RequestOptions) => {
      if (signal.aborted)
        throw new SdkError(SdkErrorCode.ConnectionClosed, "Request was cancelled");
      // Either overload of `ctx.mcpReq.send`: (request, options) for a spec method, or
      // (request, schema, options); both go out tied to this request, as the SDK's do.
      if (isStandardSchema(schemaOrOptions))
        return server.request(r, schemaOrOptions, { ...maybeOptions, relatedRequestId: id });
      return server.request(r as { method: RequestMethod }, {
        ...(schemaOrOptions as RequestOptions | undefined),
        relatedRequestId: id,
      });
    }) as DownstreamExtra["mcpReq"]["send"];
    const notify = async (notification: Notification): Promise<void> => {
      if (signal.aborted) return;
      await server.notification(notification, { relatedRequestId: id });
    };
    const extra: DownstreamExtra = {
      ...(transport.sessionId === undefined ? {} : { sessionId: transport.sessionId }),
      mcpReq: {
        id,
        method: "tools/call",
        requestState: noRequestState,
        signal,
        send,
        notify,
        log: (level, data, logger) =>
          notify({
            method: "notifications/message",
            params: { level, data, ...(logger === undefined ? {} : { logger }) },
          }),
        elicitInput: (params, options) =>
          server.elicitInput(params, { ...options, relatedRequestId: id }),
        requestSampling: (params, options) =>
          server.createMessage(params, { ...options, relatedRequestId: id }),
      },
      answerNow: (result) => {
        if (answered || signal.aborted) return;
        // A result MCP does not allow is left to the handler's answer (InvalidParams, below).
        const checked = CallToolResultSchema.safeParse(result);
        if (!checked.success) return;
        answered = true;
        transport.send({ result: checked.data, jsonrpc: "2.0", id }).catch(sendFailed);
      },
    };
    new Promise<CallToolResult | CreateTaskResult>((resolve) =>
      resolve(handle(request.params, extra)),
    )
      .then((result) => {
        if (answered) return null;
        const checked = CallToolResultSchema.safeParse(result);
        if (!checked.success)
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            `Invalid tools/call result: ${checked.error.message}`,
          );
        return checked.data;
      })
      .then(
        (result) =>
          result === null || signal.aborted
            ? undefined
            : transport.send({ result, jsonrpc: "2.0", id }),
        (error: { code?: unknown; message?: string; data?: unknown }) => {
          // The client has its answer already: a failure after it is reported, not sent.
          if (answered) {
            server.onerror?.(
              new Error(`tools/call failed after its answer was sent: ${error.message ?? error}`),
            );
            return undefined;
          }
          return signal.aborted
            ? undefined
            : transport.send({
                jsonrpc: "2.0",
                id,
                error: {
                  code: Number.isSafeInteger(error.code)
                    ? (error.code as number)
                    : ProtocolErrorCode.InternalError,
                  message: error.message ?? "Internal error",
                  ...(error.data !== undefined ? { data: error.data } : {}),
                },
              });
        },
      )
      .catch(sendFailed)
      .finally(() => {
        if (running.get(id) === controller) running.delete(id);
        makeSpare();
      });
  };

  const wrapped = interceptMessages(transport, (message) => {
    if (isPlainToolCall(message)) {
      answer(message);
      return true;
    }
    // The SDK still sees a cancellation (it finds none of its requests under the id).
    if (isCancellation(message))
      running.get(message.params.requestId)?.abort(message.params.reason);
    return false;
  });
  if (!wrapped) return;
  beforeClose(transport, () => {
    for (const controller of running.values()) controller.abort();
    running.clear();
  });
}

/** A plain `tools/call` carries no multi-round-trip state (a 2026-07-28 notion). */
const noRequestState = <T>(): T | undefined => undefined;

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { "~standard"?: unknown })["~standard"] === "object"
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * What the SDK's `tools/call` schema accepts, in a request its JSON-RPC schema accepts as it
 * is (`isPlainRequest`, the HTTP transport's check: no `_meta`), minus `task`.
 */
function isPlainToolCall(message: JSONRPCMessage): message is PlainToolCall {
  if (!isPlainRequest(message) || message.method !== "tools/call") return false;
  const params = message.params as Record<string, unknown> | undefined;
  if (params === undefined || typeof params.name !== "string") return false;
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return false;
  return params.task === undefined;
}

function isCancellation(
  message: JSONRPCMessage,
): message is JSONRPCMessage & { params: { requestId: RequestId; reason?: string } } {
  if (!("method" in message) || message.method !== "notifications/cancelled" || "id" in message)
    return false;
  const params = message.params as unknown;
  return (
    isPlainObject(params) &&
    (typeof params.requestId === "string" || typeof params.requestId === "number")
  );
}
