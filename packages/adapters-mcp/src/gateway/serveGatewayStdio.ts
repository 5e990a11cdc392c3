import type { StandaloneConversation } from "../conversation/standaloneConversation.js";
import type { ToolledgerHost } from "../host/toolledgerHost.js";
import { answerToolCalls } from "./answerToolCalls.js";
import { createGatewayServer } from "./createGatewayServer.js";
import { errorReporter, type Gateway, hubFor, type StdioGatewayOptions } from "./gatewayOptions.js";
import { StdioLineServerTransport } from "./stdioServerTransport.js";

/**
 * Serves the gateway over this process's stdin/stdout (logs must go to stderr): one client,
 * one conversation, closed when the client goes away.
 */
export async function serveGatewayStdio(
  source: ToolledgerHost | StandaloneConversation,
  options: StdioGatewayOptions = {},
): Promise<Gateway> {
  const report = errorReporter(options);
  const hub = hubFor("conversation" in source ? source.host : source, options);
  const downstream = createGatewayServer(source, "stdio", { ...options, hub });
  // A bad or oversized line from the client is reported, never silently fatal (issue 10).
  downstream.server.onerror = report;
  downstream.server.onclose = () => options.onClose?.();
  const stdout = options.stdout ?? process.stdout;
  const transport = new StdioLineServerTransport(options.stdin ?? process.stdin, stdout, {
    ...(options.maxMessageBytes ? { maxMessageBytes: options.maxMessageBytes } : {}),
  });
  await downstream.server.connect(transport);
  // A plain tools/call is answered without the SDK's per-request dispatch (issue 20, bench 5a).
  answerToolCalls(downstream.server, transport, downstream.callTool);
  return {
    async close(reason = "gateway stopped") {
      await downstream.dispose(reason);
      await downstream.server.close();
    },
  };
}
