import type { Readable, Writable } from "node:stream";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import {
  ENABLE_TOOLS_NAME,
  getExtension,
  type McpTool,
  modelView,
  type State,
} from "@toolledger/core";
import { distinctUntilChanged, map, type Subscription, skip } from "rxjs";
import { type DownstreamExtra, GatewayHub, type ProgressRelay, toMcpError } from "./_gatewayHub.js";
import { type HttpHost, hostMcpOverHttp } from "./_httpHost.js";
import { relayCatalog } from "./_relayCatalog.js";
import { relayLogging } from "./_relayLogging.js";
import { relayServerRequests } from "./_relaySampling.js";
import { AdapterError } from "./adapterError.js";
import type { ToolledgerSession } from "./session.js";

export interface GatewayOptions {
  /** Server name announced to downstream clients. Default `toolledger-gateway`. */
  name?: string;
  version?: string;
  /** Where failures no downstream request can carry go (e.g. a notification that could not be sent). Default: stderr. */
  onError?: (error: Error) => void;
  /** Timeout of a request relayed to a server (prompts/get, resources/read…). Default 60 s. */
  requestTimeoutMs?: number;
}

/**
 * G1: what the gateway declares. Servers can be added after a client connected, and a
 * client's capabilities are fixed at its handshake, so everything the gateway can relay is
 * declared whether or not a server offers it now (an empty list is the honest answer then).
 */
export const GATEWAY_CAPABILITIES = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  completions: {},
  logging: {},
} as const;

export interface HttpGatewayOptions extends GatewayOptions {
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Default `/mcp`. */
  path?: string;
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
  const instructions = gatewayInstructions(session);
  const server = new Server(
    { name: options.name ?? "toolledger-gateway", version: options.version ?? "0.1.0" },
    { capabilities: GATEWAY_CAPABILITIES, ...(instructions ? { instructions } : {}) },
  );
  const hub = GatewayHub.for(session, report, options.requestTimeoutMs);
  const peer = hub.attach(server, relayServerRequests);
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: gatewayTools(session.state) as Tool[],
  }));
  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      const { name, arguments: args, _meta } = request.params;
      let end: (() => void) | undefined;
      const relay = _meta ? relayedMeta(hub, extra, _meta) : null;
      try {
        const outcome = await session.callTool(name, args ?? {}, {
          signal: extra.signal,
          ...relay?.options,
          onStart: (extension) => {
            end = hub.track(peer, extension, extra);
          },
        });
        if (!outcome.ok) {
          // G2: a name that is no tool is a protocol error; a refusal the model can act on is a tool result.
          if (outcome.error.code === "UNKNOWN_TOOL")
            throw new McpError(ErrorCode.InvalidParams, outcome.error.message);
          return errorResult(outcome.error.message);
        }
        await relay?.progress?.flush();
        return outcome.result as CallToolResult;
      } catch (error) {
        // G2: the server's own JSON-RPC error passes through as it would directly.
        if (error instanceof AdapterError && error.serverAnswered) throw toMcpError(error);
        // Timeouts, lost servers: the model gets the reason as a tool error it can act on.
        if (error instanceof AdapterError) return errorResult(`${error.code}: ${error.message}`);
        throw error;
      } finally {
        end?.();
      }
    },
  );
  relayLogging(hub, peer);
  const stopCatalog = relayCatalog(hub, peer);
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
  return {
    server,
    dispose: () => {
      subscription.unsubscribe();
      stopCatalog();
      hub.detach(peer);
    },
  };
}

/**
 * G1: the progress token is re-minted upstream and the server's progress relayed with the
 * client's token; every other `_meta` entry goes up as sent. Nothing is paid without them.
 */
function relayedMeta(
  hub: GatewayHub,
  extra: DownstreamExtra,
  meta: Record<string, unknown>,
): {
  progress: ProgressRelay | null;
  options: { onprogress?: ProgressRelay["onprogress"]; meta?: Record<string, unknown> };
} {
  const { progressToken, ...rest } = meta;
  const progress =
    typeof progressToken === "string" || typeof progressToken === "number"
      ? hub.progressRelay(extra, progressToken)
      : null;
  return {
    progress,
    options: {
      ...(progress ? { onprogress: progress.onprogress } : {}),
      ...(Object.keys(rest).length > 0 ? { meta: rest } : {}),
    },
  };
}

/**
 * G1: each connected server's instructions, after the deferral prompt (D4). A single source
 * is passed on verbatim, so a gateway in front of one server says what that server says.
 */
export function gatewayInstructions(session: ToolledgerSession): string | undefined {
  const parts: string[] = [];
  const prompt = modelView(session.state).systemPrompt;
  if (prompt) parts.push(prompt);
  const servers = session
    .extensions()
    .filter((e) => getExtension(session.state, e.key)?.hidden === false)
    .map((e) => ({ name: e.name, text: session.connection(e.key)?.instructions }))
    .filter(
      (s): s is { name: string; text: string } =>
        typeof s.text === "string" && s.text.trim() !== "",
    );
  if (parts.length === 0 && servers.length === 1) return servers[0]!.text;
  for (const s of servers) parts.push(`## ${s.name}\n\n${s.text}`);
  return parts.length > 0 ? parts.join("\n\n") : undefined;
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
