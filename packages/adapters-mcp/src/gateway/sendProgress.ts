import type { Progress, Server, ServerContext } from "@modelcontextprotocol/server";
import { StdioLineServerTransport } from "./stdioServerTransport.js";

/** The SDK's `_meta` key of a request that belongs to a task (its notifications are queued). */
const RELATED_TASK = "io.modelcontextprotocol/related-task";

/**
 * G1: sends one progress report down to the client of `extra`'s request. It writes what the
 * SDK's `extra.sendNotification` writes (the same message, tied to the same request for the
 * HTTP transport's stream) without its two async hops and copies, which were a third of the
 * gateway's time per relayed report (bench 9b). Over the gateway's own stdio transport the
 * report is posted (queued for this turn's write, no promise: bench 9b), and null is
 * returned. A request that belongs to a task, and a server with no transport, take the SDK's
 * own path.
 */
export function sendProgress(
  server: Server | undefined,
  extra: ServerContext,
  params: Progress & { progressToken: string | number },
): Promise<void> | null {
  const transport = server?.transport;
  if (!transport || extra.mcpReq._meta?.[RELATED_TASK] !== undefined)
    return extra.mcpReq.notify({ method: "notifications/progress", params });
  // The SDK sends nothing for a request that was cancelled.
  if (extra.mcpReq.signal.aborted) return Promise.resolve();
  const message = { method: "notifications/progress", params, jsonrpc: "2.0" } as const;
  if (transport instanceof StdioLineServerTransport) {
    transport.post(message);
    return null;
  }
  return transport.send(message, { relatedRequestId: extra.mcpReq.id });
}
