import type { CallToolRequest, CallToolResult } from "@modelcontextprotocol/server";
import { ProtocolErrorCode } from "@modelcontextprotocol/server";
import { AdapterError } from "../adapterError.js";
import type { CallToolOutcome } from "../conversation/callToolTypes.js";
import type { Conversation } from "../conversation/conversation.js";
import type { DownstreamExtra, Peer } from "./downstreamPeer.js";
import type { GatewayHub } from "./gatewayHub.js";
import { relayedMeta } from "./progressRelay.js";
import { ProtocolError, toProtocolError } from "./protocolError.js";

/**
 * A client's `tools/call` through its conversation (R13, D9, enable_tools, C4): progress and
 * `_meta` relayed (G1), the answer as MCP prescribes it (G2).
 */
export async function relayToolCall(
  hub: GatewayHub,
  peer: Peer,
  conversation: Conversation,
  params: CallToolRequest["params"],
  extra: DownstreamExtra,
): Promise<CallToolResult> {
  const { name, arguments: args, _meta } = params;
  let end: (() => void) | undefined;
  const relay = _meta ? relayedMeta(extra, _meta, (e) => hub.report(e), peer.server) : null;
  try {
    const outcome = await conversation.callTool(name, args ?? {}, {
      signal: extra.mcpReq.signal,
      // C4: the answer goes out first; the finish is queued before it, appended right after.
      recordFinishAfterAnswer: true,
      ...relay?.options,
      // Issue 20 (bench 5a): over stdio a plain call's result goes to the client as it arrives.
      ...(extra.answerNow && !relay ? { onResult: extra.answerNow } : {}),
      onStart: (extension) => {
        end = hub.track(peer, extension, extra);
      },
    });
    if (!outcome.ok) return refusalAnswer(outcome);
    if (relay?.progress) await relay.progress.flush();
    return outcome.result as CallToolResult;
  } catch (error) {
    return failureAnswer(error, hub);
  } finally {
    end?.();
  }
}

/** G2: a name that is no tool is a protocol error; a refusal the model can act on is a tool result. */
export function refusalAnswer(outcome: Extract<CallToolOutcome, { ok: false }>): CallToolResult {
  if (outcome.error.code === "UNKNOWN_TOOL")
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, outcome.error.message);
  return errorResult(outcome.error.message);
}

/**
 * G2: the server's own JSON-RPC error passes through as it would directly; timeouts and lost
 * servers are tool errors the model can act on; anything else is thrown as it is.
 */
export function failureAnswer(error: unknown, hub: GatewayHub): CallToolResult {
  if (error instanceof AdapterError && error.serverAnswered)
    throw toProtocolError(error, hub.host.redactor);
  if (error instanceof AdapterError) return errorResult(`${error.code}: ${error.message}`);
  throw error;
}

export function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
