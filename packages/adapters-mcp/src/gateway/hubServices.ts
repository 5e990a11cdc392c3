import type { ToolledgerHost } from "../host/toolledgerHost.js";
import type { DownstreamExtra, Peer } from "./downstreamPeer.js";
import type { UpstreamTasks } from "./tasks/upstreamTasks.js";

/**
 * What the parts a GatewayHub is made of (its resource subscriptions and log levels, the relay
 * of the servers' requests) use of it: in a file of its own, so that they need not import the
 * hub that composes them.
 */
export interface HubServices {
  readonly host: ToolledgerHost;
  /** The downstream sessions served. */
  readonly peers: ReadonlySet<Peer>;
  /** Timeout of a request relayed to a server. */
  readonly requestTimeoutMs: number;
  /** G4: the relayed tasks of every session, by their server and its task id. */
  readonly upstreamTasks: UpstreamTasks;
  /** The client request a server's own request belongs to. */
  requester(extension: string): { peer: Peer; extra: DownstreamExtra | null } | null;
  /** G1: relays a client request to an extension's server as sent. */
  forward(
    peer: Peer,
    extension: string,
    method: string,
    params: Record<string, unknown> | undefined,
    extra: DownstreamExtra,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  /** Where failures no downstream request can carry go. */
  report(error: unknown): void;
}
