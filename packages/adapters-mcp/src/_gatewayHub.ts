import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  EmptyResultSchema,
  ErrorCode,
  type LoggingLevel,
  McpError,
  type Progress,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { Subscription } from "rxjs";
import { sendProgress } from "./_sendProgress.js";
import { AdapterError } from "./adapterError.js";
import type { UpstreamMessage } from "./extensionConnection.js";
import type { ToolledgerHost, UpstreamNotification } from "./host.js";
import { Redactor } from "./redactor.js";

/** What a downstream request handler gets from the SDK (its id, signal, and the way back to its client). */
export type DownstreamExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface ProgressRelay {
  onprogress: (progress: Progress) => void;
  /** Resolves once the relayed reports are written (see `progressRelay`). */
  flush: () => Promise<void>;
}

/** One downstream MCP session the gateway serves (stdio: the process's client; HTTP: each session id). */
export interface Peer {
  readonly server: Server;
  /** The level this client asked for with `logging/setLevel`; null: everything the servers send. */
  logLevel: LoggingLevel | null;
  /** Requests of this client that an extension's server is working on, oldest first. */
  readonly inflight: Inflight[];
  /** `<extension>\0<uri>` of every resource this client subscribed to. */
  readonly subscriptions: Set<string>;
}

interface Inflight {
  extension: string;
  extra: DownstreamExtra;
  /** Start order across every client, so overlapping callers can be told apart. */
  at: number;
}

let started = 0;

/** RFC 5424 severities, as MCP orders its log levels. */
const SEVERITY: Record<LoggingLevel, number> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};

/** How long a response waits for the client's answer to the ping behind its progress (see `progressRelay`). */
const PING_TIMEOUT_MS = 2_000;

const hubs = new WeakMap<ToolledgerHost, GatewayHub>();

/**
 * G1: what the downstream sessions of one gateway share: the upstream connections' requests
 * and notifications routed to the right client, resource subscriptions counted across
 * clients, and the log level asked of each server. One per host.
 */
export class GatewayHub {
  readonly host: ToolledgerHost;
  readonly peers = new Set<Peer>();
  readonly requestTimeoutMs: number;
  readonly #report: (error: Error) => void;
  readonly #subscribers = new Map<string, Set<Peer>>();
  readonly #upstreamLevels = new Map<string, LoggingLevel>();
  #notifications: Subscription | null = null;

  private constructor(
    host: ToolledgerHost,
    report: (error: Error) => void,
    requestTimeoutMs: number,
  ) {
    this.host = host;
    this.#report = report;
    this.requestTimeoutMs = requestTimeoutMs;
  }

  static for(
    host: ToolledgerHost,
    report: (error: Error) => void,
    requestTimeoutMs = 60_000,
  ): GatewayHub {
    let hub = hubs.get(host);
    if (!hub) {
      hub = new GatewayHub(host, report, requestTimeoutMs);
      hubs.set(host, hub);
    }
    return hub;
  }

  /** Starts serving one downstream session. */
  attach(server: Server, onUpstreamRequest: (hub: GatewayHub) => void): Peer {
    const peer: Peer = { server, logLevel: null, inflight: [], subscriptions: new Set() };
    if (this.peers.size === 0) {
      onUpstreamRequest(this);
      this.#notifications = this.host.upstreamNotifications$.subscribe((n) =>
        this.#onNotification(n),
      );
    }
    this.peers.add(peer);
    return peer;
  }

  /** Stops serving a downstream session: its subscriptions end (upstream too, when it was the last subscriber). */
  detach(peer: Peer): void {
    if (!this.peers.delete(peer)) return;
    for (const id of peer.subscriptions) {
      const set = this.#subscribers.get(id);
      set?.delete(peer);
      if (set && set.size === 0) {
        this.#subscribers.delete(id);
        const [extension, uri] = splitId(id);
        this.host
          .connection(extension)
          ?.forward("resources/unsubscribe", { uri }, { timeoutMs: this.requestTimeoutMs })
          .catch((error: unknown) => this.#report(asError(error)));
      }
    }
    peer.subscriptions.clear();
    if (this.peers.size === 0) {
      this.#notifications?.unsubscribe();
      this.#notifications = null;
      this.host.setUpstreamRequestHandler(null);
    }
  }

  /** Marks a request of `peer` as in flight at `extension`; returns the function that ends it. */
  track(peer: Peer, extension: string, extra: DownstreamExtra): () => void {
    const entry: Inflight = { extension, extra, at: ++started };
    peer.inflight.push(entry);
    return () => {
      const i = peer.inflight.lastIndexOf(entry);
      if (i !== -1) peer.inflight.splice(i, 1);
    };
  }

  /**
   * The client request that a server's own request (sampling, elicitation) belongs to: the
   * latest one in flight at that extension. JSON-RPC does not link them, so when clients
   * overlap at one server the latest caller is taken; with no call in flight, a gateway with
   * one client gives it that client.
   */
  requester(extension: string): { peer: Peer; extra: DownstreamExtra | null } | null {
    let best: { peer: Peer; extra: DownstreamExtra; at: number } | null = null;
    for (const peer of this.peers) {
      for (let i = peer.inflight.length - 1; i >= 0; i--) {
        const entry = peer.inflight[i]!;
        if (entry.extension !== extension) continue;
        if (!best || entry.at > best.at) best = { peer, extra: entry.extra, at: entry.at };
        break;
      }
    }
    if (best) return { peer: best.peer, extra: best.extra };
    if (this.peers.size === 1) return { peer: [...this.peers][0]!, extra: null };
    return null;
  }

  /**
   * G1: progress the server reports goes down with the client's own token. `flush` runs
   * before the response: an SDK client that reads a progress notification and the response
   * in one chunk drops the notification (it forgets the token before the notification's
   * handler runs), so after relaying progress the gateway pings the client first. A client
   * answers a ping only after handling what came before it, and it costs one round trip
   * only for calls that reported progress.
   */
  progressRelay(extra: DownstreamExtra, token: string | number, server?: Server): ProgressRelay {
    let last: Promise<void> | null = null;
    return {
      onprogress: (p) => {
        last = sendProgress(server, extra, { ...p, progressToken: token }).catch((error: unknown) =>
          this.#report(asError(error)),
        );
      },
      flush: async () => {
        if (last === null) return;
        await last;
        // A client that cannot answer a ping only loses the ordering, never the response.
        await extra
          .sendRequest({ method: "ping" }, EmptyResultSchema, { timeout: PING_TIMEOUT_MS })
          .catch(() => undefined);
      },
    };
  }

  /**
   * G1: relays a client request to an extension's server as sent: progress token re-minted
   * and relayed, cancellation passed on, the result or the server's error passed back.
   */
  async forward(
    peer: Peer,
    extension: string,
    method: string,
    params: Record<string, unknown> | undefined,
    extra: DownstreamExtra,
  ): Promise<Record<string, unknown>> {
    const connection = this.host.connection(extension);
    if (!connection) {
      throw new ProtocolError(
        ErrorCode.InternalError,
        `extension ${JSON.stringify(extension)} is not connected; reconnect it`,
      );
    }
    const { _meta, ...rest } = params ?? {};
    const { progressToken, ...meta } = (_meta ?? {}) as Record<string, unknown>;
    const upParams = Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
    const end = this.track(peer, extension, extra);
    const progress =
      typeof progressToken === "string" || typeof progressToken === "number"
        ? this.progressRelay(extra, progressToken, peer.server)
        : null;
    try {
      const result = await connection.forward(method, upParams, {
        timeoutMs: this.requestTimeoutMs,
        signal: extra.signal,
        ...(progress ? { onprogress: progress.onprogress } : {}),
      });
      await progress?.flush();
      return result;
    } catch (error) {
      throw toProtocolError(error, this.host.redactor);
    } finally {
      end();
    }
  }

  /** G1: one upstream subscription per resource, however many clients subscribe. */
  async subscribe(
    peer: Peer,
    extension: string,
    uri: string,
    extra: DownstreamExtra,
  ): Promise<Record<string, unknown>> {
    const id = `${extension}\u0000${uri}`;
    let set = this.#subscribers.get(id);
    if (!set) {
      await this.forward(peer, extension, "resources/subscribe", { uri }, extra);
      set = this.#subscribers.get(id) ?? new Set();
      this.#subscribers.set(id, set);
    }
    set.add(peer);
    peer.subscriptions.add(id);
    return {};
  }

  async unsubscribe(
    peer: Peer,
    extension: string,
    uri: string,
    extra: DownstreamExtra,
  ): Promise<Record<string, unknown>> {
    const id = `${extension}\u0000${uri}`;
    const set = this.#subscribers.get(id);
    peer.subscriptions.delete(id);
    set?.delete(peer);
    if (set && set.size === 0) {
      this.#subscribers.delete(id);
      await this.forward(peer, extension, "resources/unsubscribe", { uri }, extra);
    } else if (!set) {
      // Not subscribed through us: the server answers as it would directly.
      await this.forward(peer, extension, "resources/unsubscribe", { uri }, extra);
    }
    return {};
  }

  /**
   * G1: each server is asked for the most verbose level any client asked for; each client
   * then gets the messages at or above its own level.
   */
  async applyLogLevels(extra: DownstreamExtra, peer: Peer): Promise<void> {
    let level: LoggingLevel | null = null;
    for (const p of this.peers) {
      if (p.logLevel !== null && (level === null || SEVERITY[p.logLevel] < SEVERITY[level]))
        level = p.logLevel;
    }
    if (level === null) return;
    const wanted = level;
    await Promise.all(
      this.host.extensions().map(async ({ key }) => {
        const connection = this.host.connection(key);
        if (!connection?.capabilities.logging || this.#upstreamLevels.get(key) === wanted) return;
        await this.forward(peer, key, "logging/setLevel", { level: wanted }, extra);
        this.#upstreamLevels.set(key, wanted);
      }),
    );
  }

  /** Where failures no downstream request can carry go. */
  report(error: unknown): void {
    this.#report(asError(error));
  }

  #onNotification(n: UpstreamNotification): void {
    if (n.method === "notifications/message") this.#relayLog(n);
    else if (n.method === "notifications/resources/updated") this.#relayUpdate(n);
  }

  /** A log message goes to every client whose level admits it, on the stream of its call to that server when it has one. */
  #relayLog(n: UpstreamNotification): void {
    const level = n.params?.level as LoggingLevel | undefined;
    const message = { method: n.method, params: n.params ?? {} } as ServerNotification;
    for (const peer of this.peers) {
      if (
        peer.logLevel !== null &&
        level !== undefined &&
        SEVERITY[level] < SEVERITY[peer.logLevel]
      )
        continue;
      const call = latest(peer, n.extension);
      const sent = call ? call.sendNotification(message) : peer.server.notification(message);
      sent.catch((error: unknown) => this.#report(asError(error)));
    }
  }

  #relayUpdate(n: UpstreamNotification): void {
    const uri = n.params?.uri;
    if (typeof uri !== "string") return;
    const set = this.#subscribers.get(`${n.extension}\u0000${uri}`);
    if (!set) return;
    const message = { method: n.method, params: n.params ?? {} } as ServerNotification;
    for (const peer of set)
      peer.server.notification(message).catch((error: unknown) => this.#report(asError(error)));
  }
}

function latest(peer: Peer, extension: string): DownstreamExtra | undefined {
  for (let i = peer.inflight.length - 1; i >= 0; i--) {
    const entry = peer.inflight[i]!;
    if (entry.extension === extension) return entry.extra;
  }
  return undefined;
}

function splitId(id: string): [string, string] {
  const i = id.indexOf("\u0000");
  return [id.slice(0, i), id.slice(i + 1)];
}

/**
 * A JSON-RPC error to answer a client with: the SDK sends a thrown error's `code`, `message`
 * and `data` as they are (an McpError's message already carries an "MCP error <code>:" prefix,
 * which the client's SDK would add a second time).
 */
export class ProtocolError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "ProtocolError";
    this.code = code;
    this.data = data;
  }
}

/**
 * The server's own JSON-RPC error passes through unchanged but for the secrets of the
 * host's configs (R6: a server echoing a token in an error must not put it in the client's
 * logs); our failures become internal errors that say why.
 */
export function toProtocolError(error: unknown, redactor: Redactor = Redactor.none): ProtocolError {
  if (error instanceof ProtocolError) return error;
  if (error instanceof McpError)
    return new ProtocolError(
      error.code,
      redactor.redact(stripPrefix(error.message)),
      redactor.redactValue(error.data),
    );
  if (error instanceof AdapterError) {
    const cause = error.cause;
    if (error.code === "PROTOCOL_ERROR" && cause instanceof McpError)
      return new ProtocolError(
        cause.code,
        redactor.redact(stripPrefix(cause.message)),
        redactor.redactValue(cause.data),
      );
    if (error.code === "CANCELLED")
      return new ProtocolError(ErrorCode.RequestTimeout, error.message);
    return new ProtocolError(ErrorCode.InternalError, `${error.code}: ${error.message}`);
  }
  return new ProtocolError(ErrorCode.InternalError, asError(error).message);
}

/** McpError prefixes "MCP error <code>: "; the client adds it again. */
function stripPrefix(message: string): string {
  return message.replace(/^MCP error -?\d+: /, "");
}

export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

export type { UpstreamMessage };
