import type { LoggingLevel, Server, ServerContext } from "@modelcontextprotocol/server";

/** What a downstream request handler gets from the SDK (its id, signal, and the way back to its client). */
export type DownstreamExtra = ServerContext & {
  /**
   * Set by the stdio gateway's direct path for a plain `tools/call` (`answerToolCalls`):
   * answers the client with a server's result the moment it arrives, before the call's
   * recording runs. The handler's own answer is then not sent again.
   */
  answerNow?: (result: Record<string, unknown>) => void;
};

/** One downstream MCP session the gateway serves (stdio: the process's client; HTTP: each session id). */
export interface Peer {
  readonly server: Server;
  /**
   * V1: the client's protocol era. A `modern` (2026-07-28) client gets log messages only on a
   * request that asked for them (`logLevel` in its envelope), and no unsolicited message.
   */
  readonly era: "legacy" | "modern";
  /** The level this client asked for with `logging/setLevel`; null: everything the servers send. */
  logLevel: LoggingLevel | null;
  /** Requests of this client that an extension's server is working on, oldest first. */
  readonly inflight: Inflight[];
  /** `<extension>\0<uri>` of every resource this client subscribed to. */
  readonly subscriptions: Set<string>;
}

export interface Inflight {
  extension: string;
  extra: DownstreamExtra;
  /** Start order across every client, so overlapping callers can be told apart. */
  at: number;
}

let started = 0;

export function newPeer(server: Server, era: Peer["era"] = "legacy"): Peer {
  return { server, era, logLevel: null, inflight: [], subscriptions: new Set() };
}

/** Marks a request of `peer` as in flight at `extension`; returns the function that ends it. */
export function trackRequest(peer: Peer, extension: string, extra: DownstreamExtra): () => void {
  const entry: Inflight = { extension, extra, at: ++started };
  peer.inflight.push(entry);
  return () => {
    const i = peer.inflight.lastIndexOf(entry);
    if (i !== -1) peer.inflight.splice(i, 1);
  };
}

/** The latest request of `peer` in flight at `extension`. */
export function latestRequest(peer: Peer, extension: string): DownstreamExtra | undefined {
  for (let i = peer.inflight.length - 1; i >= 0; i--) {
    const entry = peer.inflight[i]!;
    if (entry.extension === extension) return entry.extra;
  }
  return undefined;
}

/**
 * The client request that a server's own request (sampling, elicitation) belongs to: the
 * latest one in flight at that extension. JSON-RPC does not link them, so when clients
 * overlap at one server the latest caller is taken; with no call in flight, a gateway with
 * one client gives it that client.
 */
export function requesterAt(
  peers: ReadonlySet<Peer>,
  extension: string,
): { peer: Peer; extra: DownstreamExtra | null } | null {
  let best: { peer: Peer; extra: DownstreamExtra; at: number } | null = null;
  for (const peer of peers) {
    for (let i = peer.inflight.length - 1; i >= 0; i--) {
      const entry = peer.inflight[i]!;
      if (entry.extension !== extension) continue;
      if (!best || entry.at > best.at) best = { peer, extra: entry.extra, at: entry.at };
      break;
    }
  }
  if (best) return { peer: best.peer, extra: best.extra };
  if (peers.size === 1) return { peer: [...peers][0]!, extra: null };
  return null;
}
