import type { Server } from "@modelcontextprotocol/server";
import { ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { Subscription } from "rxjs";
import type { UpstreamNotification } from "../host/callUpstream.js";
import type { ToolledgerHost } from "../host/toolledgerHost.js";
import {
  type DownstreamExtra,
  newPeer,
  type Peer,
  requesterAt,
  trackRequest,
} from "./downstreamPeer.js";
import type { HubServices } from "./hubServices.js";
import { LogLevels } from "./logLevels.js";
import { relayedMeta } from "./progressRelay.js";
import { asError, ProtocolError, toProtocolError } from "./protocolError.js";
import { relayServerRequests } from "./relayServerRequests.js";
import { ResourceSubscriptions } from "./resourceSubscriptions.js";
import { UpstreamTasks } from "./tasks/upstreamTasks.js";

export interface GatewayHubOptions {
  /** Where failures no downstream request can carry go. Default: stderr. */
  onError?: (error: Error) => void;
  /** Timeout of a request relayed to a server (prompts/get, resources/read…). Default 60 s. */
  requestTimeoutMs?: number;
}

/** The hub serving each host: one at a time, so the servers' requests have one place to go. */
const serving = new WeakMap<ToolledgerHost, GatewayHub>();

/**
 * G1: what the downstream sessions of one gateway share: the upstream connections' requests
 * and notifications routed to the right client, resource subscriptions counted across
 * clients, and the log level asked of each server. Whoever serves a host makes one and gives
 * it to every downstream session (`createGatewayServer`'s `hub`).
 */
export class GatewayHub implements HubServices {
  readonly host: ToolledgerHost;
  readonly peers = new Set<Peer>();
  readonly requestTimeoutMs: number;
  readonly subscriptions: ResourceSubscriptions;
  readonly logLevels: LogLevels;
  /** G4: the relayed tasks of every session, by their server and its task id. */
  readonly upstreamTasks = new UpstreamTasks();
  readonly #report: (error: Error) => void;
  #notifications: Subscription | null = null;

  constructor(host: ToolledgerHost, options: GatewayHubOptions = {}) {
    this.host = host;
    this.#report =
      options.onError ??
      ((error: Error) => process.stderr.write(`toolledger gateway: ${error.message}\n`));
    this.requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
    this.subscriptions = new ResourceSubscriptions(this);
    this.logLevels = new LogLevels(this);
  }

  /**
   * Starts serving one downstream session. The first one makes this hub the host's: the
   * servers' requests and notifications come here until the last session ends.
   */
  attach(server: Server, era: Peer["era"] = "legacy"): Peer {
    if (this.peers.size === 0) {
      const other = serving.get(this.host);
      if (other && other !== this)
        throw new Error(
          `host ${this.host.streamId} is already served by another gateway hub; give every downstream server of one host the same hub`,
        );
      serving.set(this.host, this);
      relayServerRequests(this);
      this.#notifications = this.host.upstreamNotifications$.subscribe((n) =>
        this.#onNotification(n),
      );
    }
    const peer = newPeer(server, era);
    this.peers.add(peer);
    return peer;
  }

  /** Stops serving a downstream session: its subscriptions end (upstream too, when it was the last subscriber). */
  detach(peer: Peer): void {
    if (!this.peers.delete(peer)) return;
    this.subscriptions.release(peer);
    if (this.peers.size === 0) {
      this.#notifications?.unsubscribe();
      this.#notifications = null;
      this.host.setUpstreamRequestHandler(null);
      if (serving.get(this.host) === this) serving.delete(this.host);
    }
  }

  /** Marks a request of `peer` as in flight at `extension`; returns the function that ends it. */
  track(peer: Peer, extension: string, extra: DownstreamExtra): () => void {
    return trackRequest(peer, extension, extra);
  }

  /** The client request a server's own request belongs to (see `requesterAt`). */
  requester(extension: string): { peer: Peer; extra: DownstreamExtra | null } | null {
    return requesterAt(this.peers, extension);
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
    timeoutMs: number = this.requestTimeoutMs,
  ): Promise<Record<string, unknown>> {
    const connection = this.host.connection(extension);
    if (!connection) {
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `extension ${JSON.stringify(extension)} is not connected; reconnect it`,
      );
    }
    const { _meta, ...rest } = params ?? {};
    const { progress, options } = relayedMeta(
      extra,
      (_meta ?? {}) as Record<string, unknown>,
      this.#report,
      peer.server,
    );
    const upParams = options.meta ? { ...rest, _meta: options.meta } : rest;
    const end = this.track(peer, extension, extra);
    try {
      const result = await connection.forward(method, upParams, {
        timeoutMs,
        signal: extra.mcpReq.signal,
        ...(options.onprogress ? { onprogress: options.onprogress } : {}),
      });
      await progress?.flush();
      return result;
    } catch (error) {
      throw toProtocolError(error, this.host.redactor);
    } finally {
      end();
    }
  }

  /** Where failures no downstream request can carry go. */
  report(error: unknown): void {
    this.#report(asError(error));
  }

  #onNotification(n: UpstreamNotification): void {
    if (n.method === "notifications/message") this.logLevels.relay(n);
    else if (n.method === "notifications/resources/updated") this.subscriptions.relayUpdate(n);
    else if (n.method === "notifications/tasks/status") this.#relayTaskStatus(n);
  }

  /** G4/C6: a server's task changed: recorded in its conversation and told to its client. */
  #relayTaskStatus(n: UpstreamNotification): void {
    const task = n.params as { taskId?: unknown; status?: unknown; statusMessage?: unknown };
    if (typeof task?.taskId !== "string" || typeof task.status !== "string") return;
    const found = this.upstreamTasks.find(n.extension, task.taskId);
    if (!found) return;
    found.tasks
      .observe(found.entry, {
        status: task.status as never,
        ...(typeof task.statusMessage === "string" ? { statusMessage: task.statusMessage } : {}),
      })
      .catch((error: unknown) => this.report(error));
  }
}
