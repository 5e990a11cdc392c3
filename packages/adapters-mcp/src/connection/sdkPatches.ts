// Every place toolledger reaches into the MCP SDK's private parts, in one file (SDK 2.4:
// @modelcontextprotocol/client and /server; each patch was checked against 2.4's source).
// Each patch says why it exists, what it touches, and how to tell that a newer SDK makes it
// unnecessary; each degrades to the SDK's own behaviour when the private part is gone.
import type { ChildProcess } from "node:child_process";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import type { InitializeRequest, InitializeResult, Server } from "@modelcontextprotocol/server";
import { LineBuffer, type OversizeMessageError } from "./lineBuffer.js";

/**
 * `StdioClientTransport._readBuffer`: replaced by our LineBuffer.
 * Why: the SDK's ReadBuffer fails the whole connection on a line over its limit (SDK 2.4:
 * `maxBufferSize`, 10 MB by default, then `onerror` and close; the request in flight then
 * reads "connection closed"); ours drops the line, fails only the request it
 * answered (`onOversize` makes that error response), names its size, and keeps the server.
 * Unnecessary when: the SDK's stdio client transport answers an oversized reply by failing
 * its request and keeps reading (send a reply over `maxBufferSize` and see whether the next
 * request still works). If the field is renamed, this sets an unused field and the SDK's
 * own buffer and limit apply (the transport error still names the cause).
 */
export function useLineBuffer(
  transport: object,
  maxBytes?: number,
  onOversize?: (e: OversizeMessageError) => JSONRPCMessage | null,
): void {
  if ("_readBuffer" in transport)
    (transport as { _readBuffer: unknown })._readBuffer = new LineBuffer(maxBytes, onOversize);
}

/**
 * `transport.start`: wrapped to run `then` once the transport started.
 * Why: the stdio server process exists only after `start` (the SDK spawns it there), and its
 * exit is watched from then on (see `childProcessOf`).
 * Unnecessary when: the SDK reports the server's exit (code or signal) itself, e.g. on
 * `onclose` or as a public `process`; then `childProcessOf` goes too.
 */
export function afterStart(transport: Transport, then: () => void): void {
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    then();
  };
}

/**
 * `StdioClientTransport._process`: the server's child process.
 * Why: the SDK keeps it private, and a crash report with the exit code or signal says far
 * more than "connection closed".
 * Unnecessary when: the SDK exposes the process or its exit status publicly (SDK 2.4 has a
 * public `pid` only, and clears `_process` when it closes). If the field goes, this returns
 * undefined and crash reports just lack the code.
 */
export function childProcessOf(transport: Transport): ChildProcess | undefined {
  return (transport as unknown as { _process?: ChildProcess })._process;
}

/**
 * `transport.onmessage` after `Protocol.connect` installed its own: wrapped so `intercept`
 * sees each message first and keeps the ones it handles from the SDK.
 * Why: a progress report for one of our calls is routed as it is read. The SDK would first
 * try it as a response, an error and a request (three failing zod parses, most of a
 * 1,000-report burst's relay time, bench 9b), then hand it on a microtask; and it drops a
 * report read in one chunk with its response (it forgets the token first).
 * Unnecessary when: bench 9b through the SDK's own progress handling (`onprogress`) is as fast
 * as this path, and a report read with its response still reaches `onprogress`. If `connect`
 * stops setting `onmessage`, nothing is wrapped (false) and the SDK's handling applies.
 * The same wrap takes the replies to our own requests (`DirectRequests`) and, on the
 * gateway's side, the plain `tools/call` requests it answers itself (`answerToolCalls`).
 */
export function interceptMessages(
  transport: Transport,
  intercept: (message: JSONRPCMessage) => boolean,
): boolean {
  const classify = transport.onmessage;
  if (!classify) return false;
  transport.onmessage = (message, extra) => {
    if (!intercept(message)) classify(message, extra);
  };
  return true;
}

/**
 * `transport.onclose` after `Protocol.connect` installed its own: wrapped so `then` runs first.
 * Why: requests the gateway answers itself (`answerToolCalls`) are aborted when their
 * transport closes, as the SDK aborts its own request handlers in its close handler.
 * Unnecessary when: `answerToolCalls` is (see there). If `connect` stops setting `onclose`,
 * `then` still runs when the transport closes.
 */
export function beforeClose(transport: Transport, then: () => void): void {
  const closed = transport.onclose;
  transport.onclose = () => {
    then();
    closed?.();
  };
}

/**
 * `Server._oninitialize`: the SDK's own `initialize` handler, called from ours.
 * Why: the gateway answers `initialize` as the SDK does (version negotiation, its
 * capabilities) and needs two things the SDK keeps: the negotiated protocol version (C5
 * records it) and instructions made at the handshake, not when the server object was made
 * (servers start in the background).
 * Unnecessary when: `Server` takes instructions as a function (or lets them be set before
 * the handshake); SDK 2.4 has a public (deprecated) `getNegotiatedProtocolVersion()`, but
 * its instructions are still fixed when the server object is made. If the method goes, this throws
 * at once with what to do, never a silent wrong answer.
 */
export function sdkInitializeHandler(
  server: Server,
): (request: InitializeRequest) => Promise<InitializeResult> {
  const own = (
    server as unknown as { _oninitialize?(r: InitializeRequest): Promise<InitializeResult> }
  )._oninitialize;
  if (typeof own !== "function")
    throw new Error(
      "this MCP SDK has no Server._oninitialize; update connection/sdkPatches.ts (sdkInitializeHandler)",
    );
  return own.bind(server);
}
