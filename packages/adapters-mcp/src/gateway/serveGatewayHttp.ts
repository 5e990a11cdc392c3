import type { StandaloneConversation } from "../conversation/standaloneConversation.js";
import type { ToolledgerHost } from "../host/toolledgerHost.js";
import { createGatewayServer, type Downstream } from "./createGatewayServer.js";
import {
  errorReporter,
  type HttpGateway,
  type HttpGatewayOptions,
  hubFor,
} from "./gatewayOptions.js";
import { type HttpHost, hostMcpOverHttp } from "./httpHost.js";
import { ModernConversations } from "./modernHttp.js";

/**
 * Serves the gateway over streamable HTTP on a loopback port: each MCP session is its own
 * conversation (C2), closed when the client ends the session or the gateway stops.
 */
export async function serveGatewayHttp(
  source: ToolledgerHost | StandaloneConversation,
  options: HttpGatewayOptions = {},
): Promise<HttpGateway> {
  const report = errorReporter(options);
  const hub = hubFor("conversation" in source ? source.host : source, options);
  const open = new Set<Downstream>();
  /** Conversations closing because their client ended the session: the gateway's close waits for them. */
  const closing = new Set<Promise<void>>();
  // V1: 2026-07-28 clients on the same endpoint, per request, conversations named in the path.
  const modern = new ModernConversations(source, { ...options, hub }, report);
  const host: HttpHost = await hostMcpOverHttp(
    () => {
      const downstream = createGatewayServer(source, "streamable_http", { ...options, hub });
      open.add(downstream);
      downstream.server.onclose = () => {
        open.delete(downstream);
        const done = downstream
          .dispose("client ended the session")
          .catch((error: unknown) =>
            report(new Error(`could not close a conversation: ${String(error)}`)),
          )
          .finally(() => closing.delete(done));
        closing.add(done);
      };
      return downstream.server;
    },
    {
      ...(options.host ? { host: options.host } : {}),
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.path ? { path: options.path } : {}),
      ...(options.onError ? { onError: options.onError } : {}),
      ...(options.token !== undefined ? { token: options.token } : {}),
      ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
      transport: "node",
      ...(options.routes ? { routes: options.routes } : {}),
      modern: (id, req, res, body) => modern.handle(id, req, res, body),
    },
  );
  return {
    url: host.url,
    async close(reason = "gateway stopped") {
      await Promise.allSettled([...[...open].map((d) => d.dispose(reason)), modern.close(reason)]);
      open.clear();
      await Promise.allSettled([...closing]);
      await host.close();
    },
  };
}
