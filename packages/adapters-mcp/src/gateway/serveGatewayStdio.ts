import type { Server, Transport } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { StandaloneConversation } from "../conversation/standaloneConversation.js";
import type { ToolledgerHost } from "../host/toolledgerHost.js";
import { answerToolCalls } from "./answerToolCalls.js";
import { createGatewayServer, type Downstream } from "./createGatewayServer.js";
import { errorReporter, type Gateway, hubFor, type StdioGatewayOptions } from "./gatewayOptions.js";
import { StdioLineServerTransport } from "./stdioServerTransport.js";

/**
 * Serves the gateway over this process's stdin/stdout (logs must go to stderr): one client,
 * one conversation, closed when the client goes away.
 *
 * V1: the SDK's `serveStdio` reads the connection's opening on our own line transport and
 * pins the era: a 2025 `initialize` gets the gateway's server as before (with the direct
 * `tools/call` path), a 2026-07-28 request (or `server/discover` followed by one) a modern
 * server for the connection, whose `list_changed` the SDK routes onto the client's
 * `subscriptions/listen` streams. A probe the client falls back from is discarded unopened.
 */
export async function serveGatewayStdio(
  source: ToolledgerHost | StandaloneConversation,
  options: StdioGatewayOptions = {},
): Promise<Gateway> {
  const report = errorReporter(options);
  const hub = hubFor("conversation" in source ? source.host : source, options);
  const stdout = options.stdout ?? process.stdout;
  const wire = new StdioLineServerTransport(options.stdin ?? process.stdin, stdout, {
    ...(options.maxMessageBytes ? { maxMessageBytes: options.maxMessageBytes } : {}),
  });
  /** Every server made for this connection; the last one is the one it is pinned to. */
  const made: Downstream[] = [];
  const handle = serveStdio(
    ({ era }) => {
      const downstream = createGatewayServer(source, "stdio", { ...options, hub }, { era });
      made.push(downstream);
      const server = downstream.server;
      // A bad or oversized line from the client is reported, never silently fatal (issue 10).
      server.onerror = report;
      server.onclose = () => {
        // A discarded probe: its session ends here, unopened.
        if (made.at(-1) !== downstream) void downstream.dispose("probe discarded");
      };
      if (era === "legacy") directToolCalls(server, downstream);
      return server;
    },
    { transport: wire, onerror: report },
  );
  // serveStdio owns the transport's callbacks; the end of the client's stream is told on.
  const ended = wire.onclose;
  wire.onclose = () => {
    ended?.();
    options.onClose?.();
  };
  return {
    async close(reason = "gateway stopped") {
      await Promise.allSettled(made.map((d) => d.dispose(reason)));
      await handle.close();
    },
  };
}

/**
 * A plain tools/call is answered without the SDK's per-request dispatch (issue 20, bench 5a),
 * on the channel serveStdio connects the legacy server to.
 */
function directToolCalls(server: Server, downstream: Downstream): void {
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport) => {
    await connect(transport);
    answerToolCalls(server, transport, downstream.callTool);
  };
}
