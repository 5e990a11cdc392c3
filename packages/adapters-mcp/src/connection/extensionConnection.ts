import type { ServerCapabilities, Transport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { z } from "zod";
import { AdapterError } from "../adapterError.js";
import type { ExtensionConfig } from "../extensionConfig.js";
import { Redactor } from "../redaction/redactor.js";
import {
  authorizationFailure,
  type ConnectionAuth,
  sendAfterAuthorization,
} from "./connectionAuth.js";
import {
  type ConnectOptions,
  LooseResult,
  type RequestLimits,
  type ToolCallResult,
  ToolsPage,
  UPSTREAM_CLIENT_CAPABILITIES,
} from "./connectionTypes.js";
import { DirectRequests } from "./directRequests.js";
import {
  type EraOutcome,
  eraOutcome,
  negotiationOptions,
  priorOption,
  withoutServerInfo,
} from "./eraNegotiation.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "./lineBuffer.js";
import { ModernListen } from "./modernListen.js";
import { openTransport } from "./openTransport.js";
import { describeOversize, oversizeOfTransportError } from "./oversize.js";
import { ProgressRouter } from "./progressRouter.js";
import { type FailureContext, requestFailure } from "./requestFailure.js";
import { routeIncoming } from "./routeIncoming.js";
import { interceptMessages } from "./sdkPatches.js";
import { ServerProcess } from "./serverProcess.js";
import { startFailure } from "./startFailure.js";

// Its types live in connection/connectionTypes.ts; re-exported for the host and the conversation.
export type {
  ConnectOptions,
  RequestLimits,
  ToolCallResult,
  ToolsPage,
  UpstreamMessage,
} from "./connectionTypes.js";

/**
 * One live MCP client connection to an extension's server. Every SDK client call of the
 * adapters goes through here and the files beside it in connection/ (what the server sends of
 * its own is routed by routeIncoming.ts, its process watched by serverProcess.ts, a failed start
 * told by startFailure.ts), so the SDK's next major changes this folder.
 */
export class ExtensionConnection {
  readonly config: ExtensionConfig;
  readonly #client: Client;
  readonly #transport: Transport;
  readonly #onLost: ((reason: string) => void) | undefined;
  readonly #onWarning: ((message: string) => void) | undefined;
  readonly #redactorSource: () => Redactor;
  readonly #auth: ConnectionAuth | undefined;
  /** A stdio server's process: its stderr tail and its exit. */
  readonly #process: ServerProcess;
  #closing = false;
  #closed = false;
  #ready = false;
  #lostReason: string | null = null;
  /** G1: the progress of our requests, by the token we sent up. */
  readonly #progress: ProgressRouter;
  /** Our requests, sent and answered beside the SDK client (see DirectRequests); legacy era only. */
  readonly #direct: DirectRequests;
  /** V1: the era it landed on (set by the handshake). */
  #era: EraOutcome = { era: "legacy", protocolVersion: "", probed: false };
  /** V1: a modern server's change notifications (its listen stream). */
  #listen: ModernListen | null = null;

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
    this.#process = new ServerProcess(this.#redactor);
    this.#progress = new ProgressRouter((error) => client.onerror?.(error));
    this.#direct = new DirectRequests(transport, (error) => client.onerror?.(error));
  }

  /** Starts (stdio) or reaches (HTTP) the server and completes the MCP handshake. */
  static async connect(
    config: ExtensionConfig,
    options: ConnectOptions = {},
  ): Promise<ExtensionConnection> {
    const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    const transport = openTransport(config, {
      maxMessageBytes,
      ...(options.auth ? { fetch: options.auth.fetch } : {}),
    });
    const startTimeoutMs = config.startTimeoutMs ?? options.connectTimeoutMs ?? 30_000;
    const client = new Client(options.clientInfo ?? { name: "toolledger", version: "0.1.0" }, {
      capabilities: options.onRequest ? UPSTREAM_CLIENT_CAPABILITIES : {},
      ...negotiationOptions(options.era, startTimeoutMs),
    });
    const connection = new ExtensionConnection(config, client, transport, options);
    if (transport instanceof StdioClientTransport)
      connection.#process.watch(transport, maxMessageBytes);
    routeIncoming(client, options, {
      progress: connection.#progress,
      transportError: (error) => connection.#transportError(error),
      closed: () => connection.#handleClose(),
    });
    await connection.#handshake(options);
    if (connection.#era.era === "modern") {
      // V1: a modern server's list_changed come on its listen stream (see ModernListen).
      connection.#listen = new ModernListen(client, connection.capabilities, options);
      await connection.#listen.open(startTimeoutMs);
    }
    // A reply to a request of ours settles it, and a progress report for one goes to its
    // relay, as they are read (see interceptMessages and DirectRequests).
    interceptMessages(
      transport,
      (message) => connection.#direct.take(message) || connection.#progress.relay(message),
    );
    return connection;
  }

  /** The MCP handshake, within the start timeout; a failure is START_FAILED with why (and the stderr tail). */
  async #handshake(options: ConnectOptions): Promise<void> {
    const config = this.config;
    const transport = this.#transport;
    const startTimeoutMs = config.startTimeoutMs ?? options.connectTimeoutMs ?? 30_000;
    // Closing the transport stops the server and fails the handshake in progress.
    const abandon = () => void transport.close().catch(() => undefined);
    options.signal?.addEventListener("abort", abandon, { once: true });
    try {
      if (options.signal?.aborted) throw new Error("the start was abandoned");
      await this.#client.connect(transport, {
        timeout: startTimeoutMs,
        ...priorOption(options.era),
      });
      this.#era = await eraOutcome(this.#client, options.era, startTimeoutMs);
    } catch (error) {
      this.#closing = true;
      // The start failure is what the caller must see; a failing cleanup would only hide it.
      await transport.close().catch(() => undefined);
      throw startFailure(error, {
        config,
        eraMode: options.era?.mode,
        startTimeoutMs,
        auth: this.#auth,
        redactor: this.#redactor,
        process: this.#process,
      });
    } finally {
      options.signal?.removeEventListener("abort", abandon);
    }
    this.#ready = true;
  }

  /** V1: the era the connection speaks and how it was settled (the server's advertisement, when modern). */
  get era(): EraOutcome {
    return this.#era;
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
    return this.#process.stderrTail;
  }

  /** Server instructions from the handshake, if any. */
  get instructions(): string | undefined {
    // V1: a modern connection's advertisement may have been asked again (see EraPrior.refresh).
    return this.#era.discover ? this.#era.discover.instructions : this.#client.getInstructions();
  }

  /** What the server declared at the handshake (prompts, resources, logging, completions…). */
  get capabilities(): ServerCapabilities {
    return this.#era.discover?.capabilities ?? this.#client.getServerCapabilities() ?? {};
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

  /**
   * `tools/call` with the server's raw tool name; the result is passed on as sent. With
   * `task` (MCP tasks: `{ ttl? }`) the call is task-augmented and a server that supports it
   * answers with a `CreateTaskResult`.
   */
  async callTool(
    rawName: string,
    args: Record<string, unknown>,
    limits: RequestLimits,
    meta?: Record<string, unknown>,
    task?: Record<string, unknown>,
  ): Promise<ToolCallResult> {
    return this.#request(
      "tools/call",
      meta === undefined && task === undefined
        ? { name: rawName, arguments: args }
        : {
            name: rawName,
            arguments: args,
            ...(meta === undefined ? {} : { _meta: meta }),
            ...(task === undefined ? {} : { task }),
          },
      LooseResult,
      limits,
    ) as Promise<ToolCallResult>;
  }

  /** Whether the server answers; a modern server has no `ping`: `server/discover` asks instead. */
  async ping(timeoutMs: number): Promise<void> {
    await this.#request(
      this.#era.era === "modern" ? "server/discover" : "ping",
      undefined,
      LooseResult,
      { timeoutMs },
    );
  }

  /** Closes the connection (and stops a stdio server). Not reported as lost. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closing = true;
    this.#listen?.stop();
    await this.#client.close();
  }

  /**
   * Ends a server that stopped answering: records `reason` as the loss, kills a stdio
   * server at once (a frozen process ignores a closed stdin) and closes the client.
   */
  async abandon(reason: string): Promise<void> {
    if (this.#closed) return;
    this.#lostReason = reason;
    this.#listen?.stop();
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
      token = this.#progress.register(limits.onprogress);
      const meta = params?._meta as Record<string, unknown> | undefined;
      params = { ...params, _meta: { ...meta, progressToken: token } };
    }
    const request = params === undefined ? { method } : { method, params };
    const send = () =>
      this.#era.era === "modern"
        ? this.#sdkRequest(request, schema, limits)
        : (this.#direct.request(request, schema, {
            timeout: limits.timeoutMs,
            ...(limits.signal ? { signal: limits.signal } : {}),
            // Only `callTool` sets it, whose schema's output is a ToolCallResult.
            ...(limits.onResult
              ? { onResult: limits.onResult as (result: z.infer<S>) => void }
              : {}),
          }) as Promise<z.infer<S>>);
    try {
      return await sendAfterAuthorization(send, limits.timeoutMs, limits.signal);
    } catch (error) {
      if (error instanceof AdapterError) throw error;
      throw (
        authorizationFailure(error, this.#auth, this.#redactor) ??
        requestFailure(error, method, limits, this.#failureContext())
      );
    } finally {
      if (token !== undefined) this.#progress.release(token);
    }
  }

  /** V1: a modern connection's requests go through the SDK client (2026-07-28 envelope, headers). */
  async #sdkRequest<S extends z.ZodType>(
    request: { method: string; params?: Record<string, unknown> },
    schema: S,
    limits: RequestLimits,
  ): Promise<z.infer<S>> {
    const result = (await this.#client.request(request as never, schema, {
      timeout: limits.timeoutMs,
      ...(limits.signal ? { signal: limits.signal } : {}),
    })) as z.infer<S>;
    withoutServerInfo(result as Record<string, unknown>);
    limits.onResult?.(result as ToolCallResult);
    return result;
  }

  #failureContext(): FailureContext {
    return {
      who: this.#who(),
      redactor: this.#redactor,
      closed: this.#closed,
      lostReason: this.#lostReason,
    };
  }

  /** Transport errors the SDK reports beside a request: a message over the size limit, a bad line. */
  #transportError(error: Error): void {
    const over = oversizeOfTransportError(error);
    if (!over) return;
    const reason = describeOversize(this.#who(), over);
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
    this.#listen?.stop();
    this.#direct.closed();
    if (!this.#ready || (this.#closing && this.#lostReason === null)) return;
    if (this.#lostReason !== null) {
      // abandon() already knows why; report before its close() resolves.
      this.#onLost?.(this.#lostReason);
      return;
    }
    // Let the child's exit event land first so the reason carries the exit code.
    setImmediate(() => {
      this.#lostReason ??= this.#redact(
        `the server closed the connection${this.#process.exitText()}${this.#process.stderrText()}`,
      );
      this.#onLost?.(this.#lostReason);
    });
  }

  /** The redactor now (a server's OAuth tokens join it as they arrive). */
  get #redactor(): Redactor {
    return this.#redactorSource();
  }

  /** Env and header values never leave the adapter, even when a server prints them. */
  #redact(text: string): string {
    return this.#redactor.redact(text);
  }

  #who(): string {
    return `extension ${JSON.stringify(this.config.name)}`;
  }
}
