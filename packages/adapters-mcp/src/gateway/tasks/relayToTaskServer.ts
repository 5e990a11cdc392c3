import { ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { DownstreamExtra, Peer } from "../downstreamPeer.js";
import type { GatewayHub } from "../gatewayHub.js";
import { ProtocolError } from "../protocolError.js";
import type { TaskEntry } from "./taskEntry.js";

/**
 * G4: a relayed task's request to the server that runs it, by the server's id. While it
 * runs, the client request it serves is in flight at that server (its requests come back on it).
 */
export function relayToTaskServer(
  hub: GatewayHub,
  peer: Peer,
  entry: TaskEntry,
  method: "tasks/get" | "tasks/result" | "tasks/cancel",
  extra: DownstreamExtra | null,
  timeoutMs = hub.requestTimeoutMs,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const connection = hub.host.connection(entry.extension);
  if (!connection)
    return Promise.reject(
      new ProtocolError(
        ProtocolErrorCode.InternalError,
        `extension ${JSON.stringify(entry.extension)} that runs task ${entry.taskId} is not connected`,
      ),
    );
  const end = extra ? hub.track(peer, entry.extension, extra) : () => {};
  const stop = signal ?? extra?.mcpReq.signal;
  return connection
    .forward(
      method,
      { taskId: entry.upstreamTaskId },
      { timeoutMs, ...(stop ? { signal: stop } : {}) },
    )
    .finally(end);
}
