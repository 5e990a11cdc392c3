import type { ChildProcess } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  type JSONRPCMessage,
  McpError,
  type Progress,
  type ServerCapabilities,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  mib,
  type OversizeInfo,
  OversizeMessageError,
  useLineBuffer,
} from "./_lineBuffer.js";
import { StderrTail } from "./_stderrTail.js";
import { AdapterError } from "./adapterError.js";
import { describeConfig, type ExtensionConfig } from "./extensionConfig.js";
import {
  AuthorizationFailedError,
  findAuthorizationRequired,
} from "./oauth/authorizationRequiredError.js";
import { Redactor } from "./redactor.js";

export interface ConnectOptions {
  /** How long starting the server and the MCP handshake may take. Default 30 s. */
  connectTimeoutMs?: number;
  /** Called for every `notifications/tools/list_changed` the server sends. */
  onListChanged?: () => void;
  /** Called once when the connection closes without `close()` being called (a crash or a kill). */
  onLost?: (reason: string) => void;
  /** Abandons a start in progress (the server is stopped; `connect` fails with START_FAILED). */
  signal?: AbortSignal;
  clientInfo?: { name: string; version: string };
  /** Removes secrets from every message this connection makes (a function: read when used). Default: this config's secrets. */
  redactor?: Redactor | (() => Redactor);
  /** A1–A4: the server's OAuth client (HTTP and SSE): its fetch carries the bearer token. */
  auth?: ConnectionAuth;
  /** Largest message read from a stdio server (a larger reply fails its request, named as such). Default 64 MiB. */
  maxMessageBytes?: number;
  /** Problems that fail no request (a notification over the size limit, dropped). */
  onWarning?: (message: string) => void;
  /** G1: every other notification the server sends (log messages, resource updates, prompt and resource list changes). */
  onNotification?: (notification: UpstreamMessage) => void;
  /**
   * G1: requests the server sends (sampling, elicitation), answered with the handler's result
   * or error. Without a handler the server gets "method not found".
   */
  onRequest?: (request: UpstreamMessage, signal: AbortSignal) => Promise<Record<string, unknown>>;
}

/** A4: what a connection needs of a server's OAuth client (see ServerAuthorizer). */
export interface ConnectionAuth {
  readonly fetch: FetchLike;
  /** The user must authorize the server now. */
  readonly required: boolean;
  /** The error that says so (for a failure whose cause the transport did not keep). */
  requiredError(): Error;
}

/** A JSON-RPC request or notification from the server, as sent. */
export interface UpstreamMessage {
  method: string;
  params?: Record<string, unknown>;
}

export interface RequestLimits {
  timeoutMs: number;
  signal?: AbortSignal;
  /** G1: the server's progress for this request; only then is a progress token sent up. */
  onprogress?: (progress: Progress) => void;
}

/**
 * Client capabilities toolledger declares upstream: it relays sampling and elicitation to
 * the downstream client that caused them (G1), and answers "not supported" when that client
 * did not declare them.
 */
export const UPSTREAM_CLIENT_CAPABILITIES = { sampling: {}, elicitation: {} } as const;

/** A tool call result as the server sent it (checked loosely; the host passes it on). */
export type ToolCallResult = { content?: unknown[]; isError?: boolean; [key: string]: unknown };

/** What `stderrTail` returns, and what a failure message quotes of it. */
const STDERR_TAIL_CHARS = 4096;
const STDERR_IN_MESSAGE_CHARS = 800;
/** A server's own error text (an HTTP body, a JSON-RPC error message) quoted in a message. */
const SERVER_TEXT_CHARS = 2000;
const LooseResult = z.looseObject({});
/** Marks the error response made for a reply dropped for its size (see LineBuffer). */
const OVERSIZE = "toolledgerOversize";
const ToolsPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });
export type ToolsPage = z.infer<typeof ToolsPage>;

/**
 * One live MCP client connection to an extension's server. Every SDK client call of the
 * adapters goes through here, so the SDK's next major changes one file.
 */
export class ExtensionConnection {
  readonly config: ExtensionConfig;
  readonly #client: Client;
  readonly #transport: Transport;
  readonly #onLost: ((reason: string) => void) | undefined;
  readonly #onWarning: ((message: string) => void) | undefined;
  readonly #redactorSource: () => Redactor;
  readonly #auth: ConnectionAuth | undefined;
  readonly #stderr: StderrTail;
  #exit: string | null = null;
  #closing = false;
  #closed = false;
  #ready = false;
  #lostReason: string | null = null;
  /** Progress callbacks by the token we sent up (G1). */
  readonly #progress = new Map<string, (progress: Progress) => void>();
  #nextToken = 0;

  private constructor(
    config: ExtensionConfig,
    client: Client,
    transport: Transport,
    options: ConnectOptions,
  ) {
    this.config = config;
    this.#client = client;
    this.#transport = transport;
    this.#onLost = options.onLost;
    this.#onWarning = options.onWarning;
    const redactor = options.redactor ?? Redactor.forConfigs([config]);
    this.#redactorSource = typeof redactor === "function" ? redactor : () => redactor;
    this.#auth = options.auth;
    this.#stderr = new StderrTail(this.#redactor);
  }

  /** Starts (stdio) or reaches (HTTP) the server and completes the MCP handshake. */
  static async connect(
    config: ExtensionConfig,
    options: ConnectOptions = {},
  ): Promise<ExtensionConnection> {
    const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    const requestInit =
      config.type !== "stdio" && config.headers ? { headers: config.headers } : undefined;
    const http = {
      ...(requestInit ? { requestInit } : {}),
      ...(options.auth ? { fetch: options.auth.fetch } : {}),
    };
    const transport =
      config.type === "stdio"
        ? new StdioClientTransport({
            command: config.command,
            ...(config.args ? { args: config.args } : {}),
            // The SDK adds its safe subset of this process's environment underneath.
            ...(config.env || config.baseEnv ? { env: { ...config.baseEnv, ...config.env } } : {}),
            ...(config.cwd ? { cwd: config.cwd } : {}),
            stderr: "pipe",
            maxBufferSize: maxMessageBytes,
          })
        : config.type === "sse"
          ? new SSEClientTransport(new URL(config.url), http)
          : new StreamableHTTPClientTransport(new URL(config.url), http);
    const client = new Client(options.clientInfo ?? { name: "toolledger", version: "0.1.0" }, {
      capabilities: options.onRequest ? UPSTREAM_CLIENT_CAPABILITIES : {},
    });
    const connection = new ExtensionConnection(config, client, transport, options);
    if (transport instanceof StdioClientTransport) {
      transport.stderr?.on("data", (chunk: Buffer) => connection.#stderr.push(chunk));
      // The SDK's buffer closes the connection on a line over its limit, and the request in
      // flight then reads "connection closed". This one drops the line, fails only the
      // request it answered, with its size, and keeps the server. (A future SDK without the
      // field keeps its own behaviour; onerror below still names the cause.)
      useLineBuffer(transport, maxMessageBytes, oversizeReply);
      const start = transport.start.bind(transport);
      transport.start = async () => {
        await start();
        connection.#watchExit(transport);
      };
    }
    client.onerror = (error) => connection.#transportError(error);
    if (options.onListChanged) {
      const onListChanged = options.onListChanged;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => onListChanged());
    }
    // Our own progress routing: the SDK drops a progress notification that arrives in the same
    // read as its response (it forgets the token before the notification's handler runs).
    // Progress goes through the fallback handler, unparsed: a burst of 1,000 reports spent
    // most of its relay time in the SDK's schema parse of each one.
    client.removeNotificationHandler("notifications/progress");
    const onNotification = options.onNotification;
    client.fallbackNotificationHandler = async (n) => {
      if (n.method === "notifications/progress") {
        const { progressToken, ...progress } = (n.params ?? {}) as Record<string, unknown>;
        const relay = connection.#progress.get(String(progressToken));
        if (relay && typeof progress.progress === "number") relay(progress as Progress);
        return;
      }
      onNotification?.(n as unknown as UpstreamMessage);
    };
    if (options.onRequest) {
      const onRequest = options.onRequest;
      // A fallback handler passes the request and the result on as sent (no SDK re-validation).
      client.fallbackRequestHandler = async (request, extra) =>
        (await onRequest(request as unknown as UpstreamMessage, extra.signal)) as never;
    }
    client.onclose = () => connection.#handleClose();
    const startTimeoutMs = config.startTimeoutMs ?? options.connectTimeoutMs ?? 30_000;
    // Closing the transport stops the server and fails the handshake in progress.
    const abandon = () => void transport.close().catch(() => undefined);
    options.signal?.addEventListener("abort", abandon, { once: true });
    try {
      if (options.signal?.aborted) throw new Error("the start was abandoned");
      await client.connect(transport, { timeout: startTimeoutMs });
    } catch (error) {
      connection.#closing = true;
      // The start failure is what the caller must see; a failing cleanup would only hide it.
      await transport.close().catch(() => undefined);
      const unauthorized = connection.#authorizationError(error);
      if (unauthorized) throw unauthorized;
      const why =
        error instanceof McpError && error.code === ErrorCode.RequestTimeout
          ? `the MCP handshake did not complete within ${startTimeoutMs} ms`
          : connection.#serverText(error);
      throw new AdapterError(
        "START_FAILED",
        connection.#redact(
          `extension ${JSON.stringify(config.name)} (${describeConfig(config)}) did not start: ${why}${connection.#exitText()}${connection.#stderrText()}. Check the command or URL and run it by hand to see why.`,
        ),
        { cause: error },
      );
    } finally {
      options.signal?.removeEventListener("abort", abandon);
    }
    connection.#ready = true;
    // A progress report for a call of ours goes to its relay as it is read: the SDK would
    // first try it as a response, an error and a request (three failing schema checks), then
    // hand it on a microtask; that was most of a 1,000-report burst's relay time (bench 9b).
    const wire: Transport = transport;
    const classify = wire.onmessage;
    if (classify) {
      wire.onmessage = (message, extra) => {
        if (!connection.#relayProgress(message)) classify(message, extra);
      };
    }
    return connection;
  }

  /** The redactor now (a server's OAuth tokens join it as they arrive). */
  get #redactor(): Redactor {
    return this.#redactorSource();
  }

  /** Relays a `notifications/progress` carrying one of our tokens; false for anything else. */
  #relayProgress(message: JSONRPCMessage): boolean {
    const m = message as { method?: unknown; id?: unknown; params?: unknown };
    if (m.method !== "notifications/progress" || m.id !== undefined) return false;
    const params = m.params;
    if (typeof params !== "object" || params === null || Array.isArray(params)) return false;
    const { progressToken, ...progress } = params as Record<string, unknown>;
    const relay = this.#progress.get(String(progressToken));
    if (!relay || typeof progress.progress !== "number") return false;
    try {
      relay(progress as Progress);
    } catch (error) {
      // Where the SDK would put a throwing notification handler's error.
      this.#client.onerror?.(new Error(`Uncaught error in progress handler: ${String(error)}`));
    }
    return true;
  }

  /** Whether the connection is gone (closed by us, or lost). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Why the connection was lost, or null while it lives or when we closed it. */
  get lostReason(): string | null {
    return this.#lostReason;
  }

  /** The last few KB the server wrote to stderr (stdio only), secrets redacted. */
  get stderrTail(): string {
    return this.#stderr.read(STDERR_TAIL_CHARS);
  }

  /** Server instructions from the handshake, if any. */
  get instructions(): string | undefined {
    return this.#client.getInstructions();
  }

  /** What the server declared at the handshake (prompts, resources, logging, completions…). */
  get capabilities(): ServerCapabilities {
    return this.#client.getServerCapabilities() ?? {};
  }

  /**
   * G1: any request, relayed as the client sent it (prompts/get, resources/read,
   * completion/complete, logging/setLevel…); the result is passed on as the server sent it.
   */
  async forward(
    method: string,
    params: Record<string, unknown> | undefined,
    limits: RequestLimits,
  ): Promise<Record<string, unknown>> {
    return this.#request(method, params, LooseResult, limits);
  }

  /** One `tools/list` page, checked loosely so one bad tool cannot reject the page. */
  async listToolsPage(cursor: string | undefined, limits: RequestLimits): Promise<ToolsPage> {
    return this.#request("tools/list", cursor === undefined ? {} : { cursor }, ToolsPage, limits);
  }

  /** `tools/call` with the server's raw tool name; the result is passed on as sent. */
  async callTool(
    rawName: string,
    args: Record<string, unknown>,
    limits: RequestLimits,
    meta?: Record<string, unknown>,
  ): Promise<ToolCallResult> {
    return this.#request(
      "tools/call",
      meta === undefined
        ? { name: rawName, arguments: args }
        : { name: rawName, arguments: args, _meta: meta },
      LooseResult,
      limits,
    ) as Promise<ToolCallResult>;
  }

  async ping(timeoutMs: number): Promise<void> {
    await this.#request("ping", undefined, LooseResult, { timeoutMs });
  }

  /** Closes the connection (and stops a stdio server). Not reported as lost. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closing = true;
    await this.#client.close();
  }

  /**
   * Ends a server that stopped answering: records `reason` as the loss, kills a stdio
   * server at once (a frozen process ignores a closed stdin) and closes the client.
   */
  async abandon(reason: string): Promise<void> {
    if (this.#closed) return;
    this.#lostReason = reason;
    const pid = this.#transport instanceof StdioClientTransport ? this.#transport.pid : null;
    if (pid !== null) {
      try {
        process.kill(pid, "SIGKILL");
      } catch (error) {
        // ESRCH: it exited on its own meanwhile, which is what we wanted.
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    }
    await this.#client.close();
  }

  async #request<S extends z.ZodType>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: S,
    limits: RequestLimits,
  ): Promise<z.infer<S>> {
    if (this.#closed) {
      throw new AdapterError(
        "CONNECTION_CLOSED",
        `${this.#who()} is not connected${this.#lostReason ? `: ${this.#lostReason}` : ""}; reconnect it`,
      );
    }
    let token: string | undefined;
    if (limits.onprogress) {
      token = `toolledger-${++this.#nextToken}`;
      this.#progress.set(token, limits.onprogress);
      const meta = params?._meta as Record<string, unknown> | undefined;
      params = { ...params, _meta: { ...meta, progressToken: token } };
    }
    const request = params === undefined ? { method } : { method, params };
    const send = () =>
      this.#client.request(request, schema, {
        timeout: limits.timeoutMs,
        ...(limits.signal ? { signal: limits.signal } : {}),
      }) as Promise<z.infer<S>>;
    const started = Date.now();
    try {
      try {
        return await send();
      } catch (error) {
        // A4: a browser step (a step-up) the user may finish while the caller still waits:
        // the request, refused before it reached the tool, is sent again once.
        const pending = findAuthorizationRequired(error);
        if (!pending?.prompting) throw error;
        if (
          !(await settledWithin(
            pending.authorized,
            limits.timeoutMs - (Date.now() - started),
            limits.signal,
          ))
        )
          throw error;
        return await send();
      }
    } catch (error) {
      throw this.#translate(error, method, limits);
    } finally {
      if (token !== undefined) this.#progress.delete(token);
    }
  }

  #translate(error: unknown, method: string, limits: RequestLimits): AdapterError {
    if (error instanceof AdapterError) return error;
    const unauthorized = this.#authorizationError(error);
    if (unauthorized) return unauthorized;
    const oversize =
      error instanceof McpError
        ? ((error.data as Record<string, unknown> | undefined)?.[OVERSIZE] as
            | OversizeInfo
            | undefined)
        : undefined;
    if (oversize) {
      return new AdapterError(
        "MESSAGE_TOO_LARGE",
        `${this.#who()} sent a reply of ${mib(oversize.bytes)} MiB to ${method}, over the limit of ${mib(oversize.limit)} MiB per message; it was dropped and the server stays connected (a host can raise maxMessageBytes; toolledger serve --max-message-mb)`,
        { cause: error },
      );
    }
    if (limits.signal?.aborted)
      return new AdapterError("CANCELLED", `${method} to ${this.#who()} was cancelled`, {
        cause: error,
      });
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return new AdapterError(
        "REQUEST_TIMEOUT",
        `${method} to ${this.#who()} got no answer within ${limits.timeoutMs} ms`,
        { cause: error },
      );
    }
    if ((error instanceof McpError && error.code === ErrorCode.ConnectionClosed) || this.#closed) {
      return new AdapterError(
        "CONNECTION_CLOSED",
        `${this.#who()} closed the connection during ${method}${this.#lostReason ? `: ${this.#lostReason}` : ""}`,
        { cause: error },
      );
    }
    return new AdapterError(
      "PROTOCOL_ERROR",
      this.#redact(`${method} to ${this.#who()} failed: ${this.#serverText(error)}`),
      { cause: error, serverAnswered: error instanceof McpError },
    );
  }

  /** A4: an OAuth failure as the AdapterError the host acts on, or null for any other error. */
  #authorizationError(error: unknown): AdapterError | null {
    const required =
      findAuthorizationRequired(error) ??
      (this.#auth?.required ? findAuthorizationRequired(this.#auth.requiredError()) : null);
    if (required) {
      return new AdapterError("AUTHORIZATION_REQUIRED", this.#redact(required.message), {
        cause: error,
        authorized: required.authorized,
      });
    }
    for (let e = error, depth = 0; e instanceof Error && depth < 8; depth++) {
      if (e instanceof AuthorizationFailedError)
        return new AdapterError("AUTHORIZATION_FAILED", this.#redact(e.message), { cause: error });
      e = (e as { cause?: unknown }).cause;
    }
    return null;
  }

  /** Transport errors the SDK reports beside a request: a message over the size limit, a bad line. */
  #transportError(error: Error): void {
    const sdkLimit = /ReadBuffer exceeded maximum size of (\d+)/.exec(error.message);
    const over: OversizeInfo | null =
      error instanceof OversizeMessageError
        ? error.info
        : sdkLimit
          ? { bytes: 0, limit: Number(sdkLimit[1]), id: null, method: null, kind: "unknown" }
          : null;
    if (!over) return;
    const what =
      over.bytes > 0
        ? `a ${over.kind === "unknown" ? "message" : over.kind}${over.method ? ` (${over.method})` : ""} of ${mib(over.bytes)} MiB`
        : "a message";
    const reason = `${this.#who()} sent ${what}, over the limit of ${mib(over.limit)} MiB per message`;
    if (over.kind === "notification" || over.kind === "request") {
      this.#onWarning?.(`${reason}; it was dropped`);
      return;
    }
    // A reply that cannot be matched to its request would leave that request waiting: the
    // connection goes, with the real cause.
    if (this.#lostReason === null && !this.#closed) {
      this.#lostReason = `${reason}, which could not be matched to a request; it was disconnected, reconnect it`;
      void this.abandon(this.#lostReason).catch(() => undefined);
    }
  }

  #handleClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#ready || (this.#closing && this.#lostReason === null)) return;
    if (this.#lostReason !== null) {
      // abandon() already knows why; report before its close() resolves.
      this.#onLost?.(this.#lostReason);
      return;
    }
    // Let the child's exit event land first so the reason carries the exit code.
    setImmediate(() => {
      this.#lostReason ??= this.#redact(
        `the server closed the connection${this.#exitText()}${this.#stderrText()}`,
      );
      this.#onLost?.(this.#lostReason);
    });
  }

  #watchExit(transport: Transport): void {
    // The SDK keeps the child private; its exit code makes crash reports useful. Without it
    // (a future SDK), reports just lack the code.
    const child = (transport as unknown as { _process?: ChildProcess })._process;
    child?.once("exit", (code, signal) => {
      this.#exit = signal ? `signal ${signal}` : `code ${code}`;
    });
  }

  /** Env and header values never leave the adapter, even when a server prints them. */
  #redact(text: string): string {
    return this.#redactor.redact(text);
  }

  /** What a server said about a failure: redacted, then cut (an HTTP body may be megabytes). */
  #serverText(error: unknown): string {
    const status = error instanceof StreamableHTTPError && error.code ? `HTTP ${error.code}: ` : "";
    return status + this.#redactor.head(messageOf(error), SERVER_TEXT_CHARS);
  }

  #exitText(): string {
    return this.#exit ? ` (exited with ${this.#exit})` : "";
  }

  #stderrText(): string {
    const tail = this.#stderr.read(STDERR_IN_MESSAGE_CHARS);
    return tail === "" ? "" : `; stderr tail: ${tail}`;
  }

  #who(): string {
    return `extension ${JSON.stringify(this.config.name)}`;
  }
}

/** Whether `promise` settles within `ms` (and before `signal` aborts). */
async function settledWithin(
  promise: Promise<void>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (ms <= 0 || signal?.aborted) return false;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const settled = await Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
      onAbort = () => resolve(false);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
  ]);
  clearTimeout(timer);
  if (onAbort) signal?.removeEventListener("abort", onAbort);
  return settled && !signal?.aborted;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The error response that fails the request a dropped reply answered (see LineBuffer). */
function oversizeReply(e: OversizeMessageError) {
  if (e.info.kind !== "response" || e.info.id === null) return null;
  return {
    jsonrpc: "2.0" as const,
    id: e.info.id,
    error: { code: -32600, message: e.message, data: { [OVERSIZE]: e.info } },
  };
}
