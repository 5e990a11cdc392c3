import type { Readable, Writable } from "node:stream";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  type InitializeRequest,
  InitializeRequestSchema,
  type InitializeResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import {
  ENABLE_TOOLS_NAME,
  EVENT_SCHEMA_VERSION,
  evolve,
  getExtension,
  type McpTool,
  modelView,
  type State,
  servedInstructions,
} from "@toolledger/core";
import { distinctUntilChanged, map, type Subscription, skip } from "rxjs";
import {
  type DownstreamExtra,
  GatewayHub,
  type ProgressRelay,
  ProtocolError,
  toProtocolError,
} from "./_gatewayHub.js";
import { type HttpHost, type HttpHostOptions, hostMcpOverHttp } from "./_httpHost.js";
import { coalesceWrites } from "./_lineBuffer.js";
import { rememberJson } from "./_nodeHttpTransport.js";
import { relayCatalog } from "./_relayCatalog.js";
import { relayLogging } from "./_relayLogging.js";
import { relayServerRequests } from "./_relaySampling.js";
import { StdioLineServerTransport } from "./_stdioServerTransport.js";
import { AdapterError } from "./adapterError.js";
import { Conversation, type ConversationOptions } from "./conversation.js";
import type { ToolledgerHost } from "./host.js";
import type { ToolledgerSession } from "./session.js";

export interface GatewayOptions {
  /** Server name announced to downstream clients. Default `toolledger-gateway`. */
  name?: string;
  version?: string;
  /** Where failures no downstream request can carry go (e.g. a notification that could not be sent). Default: stderr. */
  onError?: (error: Error) => void;
  /** How each downstream session's conversation is opened (deferral, payload recording, …; an `id` resumes one, stdio only). */
  conversation?: Omit<ConversationOptions, "client" | "protocolVersion" | "transport">;
  /** Told when a downstream session's conversation opens and when it closes. */
  onConversation?: (change: { type: "opened" | "closed"; conversation: Conversation }) => void;
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
  /** Bearer token every request must carry; required to bind beyond loopback (see HttpHostOptions). */
  token?: string;
  /** Browser origins allowed besides loopback ones. */
  allowedOrigins?: readonly string[];
  /** Other paths served behind the same access checks (see `HttpHostOptions.routes`). */
  routes?: HttpHostOptions["routes"];
}

export interface Gateway {
  /** Stops serving; open conversations are closed with `reason` (default "gateway stopped"). */
  close(reason?: string): Promise<void>;
}

export interface HttpGateway extends Gateway {
  url: URL;
}

interface View {
  tools: McpTool[];
  signature: string;
}

/**
 * The served list depends on the registry (extensions, collisions), the deferral config and
 * the enabled set only. A call (C4) folds two events into a new State that keeps all four,
 * so the view is cached by them, not by the State: rebuilding and serialising the list on
 * every call event was most of a relayed call's cost.
 */
const viewCache = new WeakMap<
  object,
  WeakMap<object, WeakMap<object, WeakMap<object, WeakMap<object, View>>>>
>();

function viewSlot(state: State): WeakMap<object, View> {
  // P2: what is pinned changes what is served as much as the registry does.
  return level(
    level(level(level(viewCache, state.pinning), state.extensions), state.collisions),
    state.deferral,
  );
}

function level<T extends WeakKey>(map: WeakMap<object, T>, key: object): T {
  let next = map.get(key);
  if (next === undefined) {
    next = new WeakMap() as unknown as T;
    map.set(key, next);
  }
  return next;
}

/**
 * The model view as the gateway serves it (D4): the eager tools plus `enable_tools`, whose
 * description also lists the deferred names, because instructions are fixed at the
 * handshake and many clients never show them to the model.
 */
export function gatewayTools(state: State): McpTool[] {
  return gatewayView(state).tools;
}

function gatewayView(state: State): View {
  const slot = viewSlot(state);
  const cached = slot.get(state.enabled);
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
  rememberJson(tools, entry.signature);
  slot.set(state.enabled, entry);
  return entry;
}

/** One downstream MCP session: its SDK server and its conversation (C2). */
export interface Downstream {
  server: Server;
  /** The conversation, opened when the client has initialized (or at its first request). */
  conversation(): Promise<Conversation>;
  /** Stops following the conversation and closes it with `reason` (C3 marker). */
  dispose(reason: string): Promise<void>;
}

/**
 * An MCP server for one downstream session (C2): tools/list is its conversation's model
 * view, tools/call goes through `conversation.callTool` (R13, D9, enable_tools, C4), and
 * every change of the list it serves (its own enable, a clear from the CLI, an upstream
 * change that reaches it) sends `notifications/tools/list_changed` to this client only.
 * The conversation is opened with the client's `clientInfo` once it has initialized.
 */
export function createGatewayServer(
  source: ToolledgerHost | ToolledgerSession,
  transport: "stdio" | "streamable_http",
  options: GatewayOptions = {},
): Downstream {
  const report =
    options.onError ??
    ((error: Error) => process.stderr.write(`toolledger gateway: ${error.message}\n`));
  const fixed = "conversation" in source ? source.conversation : null;
  const host = "conversation" in source ? source.host : source;
  const prompt = fixed
    ? modelView(fixed.state).systemPrompt
    : handshakePrompt(host.state, options.conversation?.deferral);
  const instructions = gatewayInstructions(host, prompt);
  const server = new Server(
    { name: options.name ?? "toolledger-gateway", version: options.version ?? "0.1.0" },
    { capabilities: GATEWAY_CAPABILITIES, ...(instructions ? { instructions } : {}) },
  );
  const hub = GatewayHub.for(host, report, options.requestTimeoutMs);
  const peer = hub.attach(server, relayServerRequests);
  let protocolVersion: string | null = null;
  const sdkInitialize = (
    server as unknown as { _oninitialize(r: InitializeRequest): Promise<InitializeResult> }
  )._oninitialize.bind(server);
  server.setRequestHandler(InitializeRequestSchema, async (request) => {
    const result = await sdkInitialize(request);
    protocolVersion = result.protocolVersion;
    return result;
  });
  let opening: Promise<Conversation> | null = null;
  /** The conversation once it is open: a call then reaches it without a promise hop. */
  let opened: Conversation | null = null;
  let subscription: Subscription | null = null;
  let disposed = false;
  const conversation = (): Promise<Conversation> => {
    opening ??= (async () => {
      const c =
        fixed ??
        (await Conversation.open(host, {
          ...options.conversation,
          client: server.getClientVersion() ?? null,
          protocolVersion,
          transport,
        }));
      if (disposed) {
        if (!fixed) await c.close("client disconnected");
        throw new AdapterError("SESSION_CLOSED", "the downstream session ended");
      }
      subscription = c.state$
        .pipe(
          map(gatewayView),
          distinctUntilChanged(),
          map((view) => view.signature),
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
      if (!fixed) options.onConversation?.({ type: "opened", conversation: c });
      opened = c;
      return c;
    })();
    return opening;
  };
  server.oninitialized = () => {
    conversation().catch((error: unknown) =>
      report(new Error(`could not open a conversation: ${String(error)}`)),
    );
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    // Issue 20: servers still starting are waited for, up to their startup grace.
    await host.untilListed();
    return { tools: gatewayTools((await conversation()).state) as Tool[] };
  });
  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      const { name, arguments: args, _meta } = request.params;
      const c = opened ?? (await conversation());
      let end: (() => void) | undefined;
      const relay = _meta ? relayedMeta(hub, extra, _meta) : null;
      try {
        const outcome = await c.callTool(name, args ?? {}, {
          signal: extra.signal,
          // C4: the answer goes out first; the finish is queued before it, appended right after.
          recordFinishAfterAnswer: true,
          ...relay?.options,
          onStart: (extension) => {
            end = hub.track(peer, extension, extra);
          },
        });
        if (!outcome.ok) {
          // G2: a name that is no tool is a protocol error; a refusal the model can act on is a tool result.
          if (outcome.error.code === "UNKNOWN_TOOL")
            throw new ProtocolError(ErrorCode.InvalidParams, outcome.error.message);
          return errorResult(outcome.error.message);
        }
        if (relay?.progress) await relay.progress.flush();
        return outcome.result as CallToolResult;
      } catch (error) {
        // G2: the server's own JSON-RPC error passes through as it would directly.
        if (error instanceof AdapterError && error.serverAnswered)
          throw toProtocolError(error, host.redactor);
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
  return {
    server,
    conversation,
    async dispose(reason: string) {
      if (disposed) return;
      disposed = true;
      subscription?.unsubscribe();
      stopCatalog();
      hub.detach(peer);
      if (fixed || !opening) return;
      const c = await opening.catch(() => null);
      if (c) {
        await c.close(reason);
        options.onConversation?.({ type: "closed", conversation: c });
      }
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
export function gatewayInstructions(
  host: ToolledgerHost,
  prompt: string | null = null,
): string | undefined {
  const parts: string[] = prompt ? [prompt] : [];
  const servers = host
    .extensions()
    .filter((e) => getExtension(host.state, e.key)?.hidden === false)
    // P2: a server's instructions as approved (pending ones are not passed on).
    .map((e) => ({
      name: e.name,
      text: servedInstructions(host.state, e.key, host.connection(e.key)?.instructions),
    }))
    .filter(
      (s): s is { name: string; text: string } =>
        typeof s.text === "string" && s.text.trim() !== "",
    );
  if (parts.length === 0 && servers.length === 1) return servers[0]!.text;
  for (const s of servers) parts.push(`## ${s.name}\n\n${s.text}`);
  return parts.length > 0 ? parts.join("\n\n") : undefined;
}

/** The instructions a new client gets at the handshake: its conversation's deferred-tools section. */
function handshakePrompt(
  registry: State,
  deferral: ConversationOptions["deferral"] | undefined,
): string | null {
  if (!deferral) return modelView(registry).systemPrompt;
  const state = evolve(registry, {
    type: "DeferralConfigured",
    v: EVENT_SCHEMA_VERSION,
    mode: deferral.mode,
    alwaysLoad: [...(deferral.alwaysLoad ?? [])],
  });
  return modelView(state).systemPrompt;
}

export interface StdioGatewayOptions extends GatewayOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Largest message read from the client; a larger request is answered with an error, and the gateway keeps serving. Default 64 MiB. */
  maxMessageBytes?: number;
  /** Called once the client's stream ended or failed: nothing more can arrive. */
  onClose?: () => void;
}

/**
 * Serves the gateway over this process's stdin/stdout (logs must go to stderr): one client,
 * one conversation, closed when the client goes away.
 */
export async function serveGatewayStdio(
  source: ToolledgerHost | ToolledgerSession,
  options: StdioGatewayOptions = {},
): Promise<Gateway> {
  const report =
    options.onError ??
    ((error: Error) => process.stderr.write(`toolledger gateway: ${error.message}\n`));
  const downstream = createGatewayServer(source, "stdio", options);
  // A bad or oversized line from the client is reported, never silently fatal (issue 10).
  downstream.server.onerror = report;
  downstream.server.onclose = () => options.onClose?.();
  const stdout = options.stdout ?? process.stdout;
  coalesceWrites(stdout);
  await downstream.server.connect(
    new StdioLineServerTransport(options.stdin ?? process.stdin, stdout, {
      ...(options.maxMessageBytes ? { maxMessageBytes: options.maxMessageBytes } : {}),
    }),
  );
  return {
    async close(reason = "gateway stopped") {
      await downstream.dispose(reason);
      await downstream.server.close();
    },
  };
}

/**
 * Serves the gateway over streamable HTTP on a loopback port: each MCP session is its own
 * conversation (C2), closed when the client ends the session or the gateway stops.
 */
export async function serveGatewayHttp(
  source: ToolledgerHost | ToolledgerSession,
  options: HttpGatewayOptions = {},
): Promise<HttpGateway> {
  const report =
    options.onError ??
    ((error: Error) => process.stderr.write(`toolledger gateway: ${error.message}\n`));
  const open = new Set<Downstream>();
  const host: HttpHost = await hostMcpOverHttp(
    () => {
      const downstream = createGatewayServer(source, "streamable_http", options);
      open.add(downstream);
      downstream.server.onclose = () => {
        open.delete(downstream);
        downstream
          .dispose("client ended the session")
          .catch((error: unknown) =>
            report(new Error(`could not close a conversation: ${String(error)}`)),
          );
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
    },
  );
  return {
    url: host.url,
    async close(reason = "gateway stopped") {
      await Promise.allSettled([...open].map((d) => d.dispose(reason)));
      open.clear();
      await host.close();
    },
  };
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
