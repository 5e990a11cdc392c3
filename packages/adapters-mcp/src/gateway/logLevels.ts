import type { LoggingLevel, ServerNotification } from "@modelcontextprotocol/server";
import type { UpstreamNotification } from "../host/callUpstream.js";
import { type DownstreamExtra, latestRequest, type Peer } from "./downstreamPeer.js";
import type { HubServices } from "./hubServices.js";
import { envelopeLogLevel } from "./modernEra.js";

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

/**
 * G1: each server is asked for the most verbose level any client asked for; each client
 * then gets the messages at or above its own level.
 */
export class LogLevels {
  readonly #hub: HubServices;
  /** The level each server was last asked for. */
  readonly #upstream = new Map<string, LoggingLevel>();

  constructor(hub: HubServices) {
    this.#hub = hub;
  }

  /** After `peer` set its level: asks each server that logs for the most verbose level wanted. */
  async apply(extra: DownstreamExtra, peer: Peer): Promise<void> {
    let level: LoggingLevel | null = null;
    for (const p of this.#hub.peers) {
      if (p.logLevel !== null && (level === null || SEVERITY[p.logLevel] < SEVERITY[level]))
        level = p.logLevel;
    }
    if (level === null) return;
    const wanted = level;
    const host = this.#hub.host;
    await Promise.all(
      host.extensions().map(async ({ key }) => {
        const connection = host.connection(key);
        if (!connection?.capabilities.logging || this.#upstream.get(key) === wanted) return;
        await this.#hub.forward(peer, key, "logging/setLevel", { level: wanted }, extra);
        this.#upstream.set(key, wanted);
      }),
    );
  }

  /** A log message goes to every client whose level admits it, on the stream of its call to that server when it has one. */
  relay(n: UpstreamNotification): void {
    const level = n.params?.level as LoggingLevel | undefined;
    const message = { method: n.method, params: n.params ?? {} } as ServerNotification;
    for (const peer of this.#hub.peers) {
      if (peer.era === "modern") {
        // V1: a 2026-07-28 client gets a message only on a request that asked for it, at its level.
        const call = latestRequest(peer, n.extension);
        const wanted = envelopeLogLevel(call);
        if (!call || wanted === undefined || level === undefined) continue;
        if (SEVERITY[level] < SEVERITY[wanted]) continue;
        call.mcpReq.notify(message).catch((error: unknown) => this.#hub.report(error));
        continue;
      }
      if (
        peer.logLevel !== null &&
        level !== undefined &&
        SEVERITY[level] < SEVERITY[peer.logLevel]
      )
        continue;
      const call = latestRequest(peer, n.extension);
      const sent = call ? call.mcpReq.notify(message) : peer.server.notification(message);
      sent.catch((error: unknown) => this.#hub.report(error));
    }
  }
}
