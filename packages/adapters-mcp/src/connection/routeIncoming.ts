import type { Client } from "@modelcontextprotocol/client";
import type { ConnectOptions, UpstreamMessage } from "./connectionTypes.js";
import type { ProgressRouter } from "./progressRouter.js";

/**
 * Where what a server sends of its own goes: its `tools/list_changed` and other notifications
 * and its requests to the connection's options, the progress of our requests to their
 * relays, and the client's transport errors and close to the connection.
 */
export function routeIncoming(
  client: Client,
  options: ConnectOptions,
  connection: {
    progress: ProgressRouter;
    transportError: (error: Error) => void;
    closed: () => void;
  },
): void {
  client.onerror = (error) => connection.transportError(error);
  if (options.onListChanged) {
    const onListChanged = options.onListChanged;
    client.setNotificationHandler("notifications/tools/list_changed", () => onListChanged());
  }
  // Progress goes through the fallback handler, unparsed: a burst of 1,000 reports spent
  // most of its relay time in the SDK's schema parse of each one (see ProgressRouter).
  client.removeNotificationHandler("notifications/progress");
  const onNotification = options.onNotification;
  client.fallbackNotificationHandler = async (n) => {
    if (n.method === "notifications/progress") {
      connection.progress.relayParsed(n.params as Record<string, unknown> | undefined);
      return;
    }
    onNotification?.(n as unknown as UpstreamMessage);
  };
  if (options.onRequest) {
    const onRequest = options.onRequest;
    // A fallback handler passes the request and the result on as sent (no SDK re-validation).
    client.fallbackRequestHandler = async (request, ctx) =>
      (await onRequest(request as unknown as UpstreamMessage, ctx.mcpReq.signal)) as never;
  }
  client.onclose = () => connection.closed();
}
