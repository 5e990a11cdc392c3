import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import type { z } from "zod";
import { onAbort } from "./abortSlots.js";

/**
 * The ids of our requests: far above the SDK's own (it numbers the handshake from 0), so a
 * reply tells whose request it answers; integers, as servers expect them.
 */
const FIRST_ID = 2 ** 40;

type Reply = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/**
 * Our requests to a server, sent straight over the SDK transport and answered from the
 * transport's messages before the SDK's client looks at them (see `take`); the SDK client
 * keeps the handshake, the server's own requests and notifications, and the close.
 * Issue 20 (bench 5a): the SDK's request path (a schema parse to classify every reply, its
 * bookkeeping maps and closures) was most of what a call cost the gateway beyond the hop.
 *
 * The outcome is `Protocol.request`'s (SDK 2.4, legacy era), so the failures map as they do:
 * a reply's result is parsed with the caller's schema (a failing parse rejects with an
 * `SdkError` InvalidResult "Invalid result for <method>: …"); a JSON-RPC error is
 * `ProtocolError.fromError(code, message, data)`; past `timeout` the server gets
 * `notifications/cancelled` and the call fails with an `SdkError` RequestTimeout "Request
 * timed out" (`{ timeout }`); an abort sends the same notification and fails with the
 * signal's reason (an `SdkError` as it is, anything else as RequestTimeout with its text); a
 * send that fails rejects with the transport's error; a closed connection fails what is
 * waiting with an `SdkError` ConnectionClosed "Connection closed". Unnecessary when: the SDK's request path costs what
 * this one does (bench 5a against a bare SDK proxy).
 */
export class DirectRequests {
  readonly #transport: Transport;
  readonly #onerror: (error: Error) => void;
  readonly #waiting = new Map<number, (reply: Reply | Error) => void>();
  #next = FIRST_ID;

  constructor(transport: Transport, onerror: (error: Error) => void) {
    this.#transport = transport;
    this.#onerror = onerror;
  }

  request<S extends z.ZodType>(
    request: { method: string; params?: Record<string, unknown> },
    schema: S,
    options: { timeout: number; signal?: AbortSignal; onResult?: (result: z.infer<S>) => void },
  ): Promise<z.infer<S>> {
    return new Promise<z.infer<S>>((resolve, reject) => {
      const signal = options.signal;
      signal?.throwIfAborted();
      const id = this.#next++;
      const settle = () => {
        this.#waiting.delete(id);
        clearTimeout(timer);
        stopListening?.();
      };
      const cancel = (reason: unknown) => {
        settle();
        this.#transport
          .send({
            jsonrpc: "2.0",
            method: "notifications/cancelled",
            params: { requestId: id, reason: String(reason) },
          })
          .catch((error: unknown) =>
            this.#onerror(new Error(`Failed to send cancellation: ${error}`)),
          );
        reject(
          reason instanceof SdkError
            ? reason
            : new SdkError(SdkErrorCode.RequestTimeout, String(reason)),
        );
      };
      const timer = setTimeout(
        () =>
          cancel(
            new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", {
              timeout: options.timeout,
            }),
          ),
        options.timeout,
      );
      const stopListening = signal ? onAbort(signal, () => cancel(signal.reason)) : null;
      this.#waiting.set(id, (reply) => {
        settle();
        if (reply instanceof Error) return reject(reply);
        if ("error" in reply) {
          const { code, message, data } = reply.error;
          return reject(ProtocolError.fromError(code, message, data));
        }
        const parsed = schema.safeParse(reply.result);
        if (!parsed.success)
          return reject(
            new SdkError(
              SdkErrorCode.InvalidResult,
              `Invalid result for ${request.method}: ${parsed.error}`,
            ),
          );
        // Told before the caller's chain of awaits runs (the stdio gateway answers its client
        // from here); whatever it throws is reported, and the request still resolves.
        if (options.onResult) {
          try {
            options.onResult(parsed.data);
          } catch (error) {
            this.#onerror(error instanceof Error ? error : new Error(String(error)));
          }
        }
        resolve(parsed.data);
      });
      this.#transport.send({ ...request, jsonrpc: "2.0", id }).catch((error: unknown) => {
        settle();
        reject(error);
      });
    });
  }

  /** Answers one of our requests with `message` when it is its reply; false for anything else. */
  take(message: JSONRPCMessage): boolean {
    if (!("id" in message) || "method" in message || typeof message.id !== "number") return false;
    const answer = this.#waiting.get(message.id);
    if (!answer) return false;
    if ("result" in message) answer({ result: message.result });
    else if ("error" in message) answer({ error: message.error });
    else return false;
    return true;
  }

  /** The connection closed: whatever still waits fails as the SDK's requests do. */
  closed(): void {
    const error = new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed");
    for (const answer of [...this.#waiting.values()]) answer(error);
  }
}
