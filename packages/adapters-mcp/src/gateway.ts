import type { Readable, Writable } from "node:stream";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { ENABLE_TOOLS_NAME, type McpTool, modelView, type State } from "@toolledger/core";
import { distinctUntilChanged, map, type Subscription, skip } from "rxjs";
import { type HttpHost, hostMcpOverHttp } from "./_httpHost.js";
import { AdapterError } from "./adapterError.js";
import type { ToolledgerSession } from "./session.js";

export interface GatewayOptions {
  /** Server name announced to downstream clients. Default `toolledger-gateway`. */
  name?: string;
  version?: string;
  /** Where failures no downstream request can carry go (e.g. a notification that could not be sent). Default: stderr. */
  onError?: (error: Error) => void;
}

export interface HttpGatewayOptions extends GatewayOptions {
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Default `/mcp`. */
  path?: string;
  /** Bearer token every request must carry; required to bind beyond loopback (see HttpHostOptions). */
  token?: string;
  /** Browser origins allowed besides loopback ones. */
  allowedOrigins?: readonly string[];
}

export interface Gateway {
  close(): Promise<void>;
}

export interface HttpGateway extends Gateway {
  url: URL;
}

const viewCache = new WeakMap<State, { tools: McpTool[]; signature: string }>();

/**
 * The model view as the gateway serves it (D4): the eager tools plus `enable_tools`, whose
 * description also lists the deferred names, because instructions are fixed at the
 * handshake and many clients never show them to the model.
 */
export function gatewayTools(state: State): McpTool[] {
  return gatewayView(state).tools;
}

function gatewayView(state: State): { tools: McpTool[]; signature: string } {
  const cached = viewCache.get(state);
  if (cached) return cached;
  const view = modelView(state);
  const tools = view.tools.map((tool) =>
    tool.name === ENABLE_TOOLS_NAME && view.deferred.length > 0
      ? {
          ...tool,
          description: `${tool.description ?? ""}\n\nDeferred tools: ${view.deferred.join(", ")}`,
        }
      : tool,
  );
  const entry = { tools, signature: JSON.stringify(tools) };
  viewCache.set(state, entry);
  return entry;
}

/**
 * An MCP server that serves a session's aggregate: tools/list is the model view, tools/call
 * goes through `session.callTool` (R13, D9, enable_tools), and every change of the served
 * list (an upstream list change, a successful enable) sends `notifications/tools/list_changed`.
 * Returns the SDK server and a dispose function that stops the change subscription.
 */
export function createGatewayServer(
  session: ToolledgerSession,
  options: GatewayOptions = {},
): { server: Server; dispose: () => void } {
  const report =
    options.onError ??
    ((error: Error) => process.stderr.write(`toolledger gateway: ${error.message}\n`));
  const prompt = modelView(session.state).systemPrompt;
  const server = new Server(
    { name: options.name ?? "toolledger-gateway", version: options.version ?? "0.1.0" },
    { capabilities: { tools: { listChanged: true } }, ...(prompt ? { instructions: prompt } : {}) },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: gatewayTools(session.state) as Tool[],
  }));
  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      const { name, arguments: args } = request.params;
      try {
        const outcome = await session.callTool(name, args ?? {}, { signal: extra.signal });
        if (!outcome.ok) return errorResult(outcome.error.message);
        return outcome.result as CallToolResult;
      } catch (error) {
        // Timeouts, lost servers: the model gets the reason as a tool error it can act on.
        if (error instanceof AdapterError) return errorResult(`${error.code}: ${error.message}`);
        throw error;
      }
    },
  );
  const subscription: Subscription = session.state$
    .pipe(
      map((state) => gatewayView(state).signature),
      distinctUntilChanged(),
      skip(1),
    )
    .subscribe(() => {
      if (!server.transport) return;
      server
        .sendToolListChanged()
        .catch((error: unknown) =>
          report(new Error(`could not send tools/list_changed downstream: ${String(error)}`)),
        );
    });
  return { server, dispose: () => subscription.unsubscribe() };
}

/** Serves the gateway over this process's stdin/stdout (logs must go to stderr). */
export async function serveGatewayStdio(
  session: ToolledgerSession,
  options: GatewayOptions & { stdin?: Readable; stdout?: Writable } = {},
): Promise<Gateway> {
  const { server, dispose } = createGatewayServer(session, options);
  await server.connect(new StdioServerTransport(options.stdin, options.stdout));
  return {
    async close() {
      dispose();
      await server.close();
    },
  };
}

/** Serves the gateway over streamable HTTP on a loopback port; one MCP session per client. */
export async function serveGatewayHttp(
  session: ToolledgerSession,
  options: HttpGatewayOptions = {},
): Promise<HttpGateway> {
  const disposers = new Set<() => void>();
  const host: HttpHost = await hostMcpOverHttp(
    () => {
      const { server, dispose } = createGatewayServer(session, options);
      disposers.add(dispose);
      server.onclose = () => {
        dispose();
        disposers.delete(dispose);
      };
      return server;
    },
    {
      ...(options.host ? { host: options.host } : {}),
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.path ? { path: options.path } : {}),
      ...(options.onError ? { onError: options.onError } : {}),
      ...(options.token !== undefined ? { token: options.token } : {}),
      ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
    },
  );
  return {
    url: host.url,
    async close() {
      for (const dispose of disposers) dispose();
      disposers.clear();
      await host.close();
    },
  };
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
