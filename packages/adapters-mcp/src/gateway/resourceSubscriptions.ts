import type { ServerNotification } from "@modelcontextprotocol/server";
import type { UpstreamNotification } from "../host/callUpstream.js";
import type { DownstreamExtra, Peer } from "./downstreamPeer.js";
import type { HubServices } from "./hubServices.js";

/**
 * G1: one upstream subscription per resource, however many clients subscribe; an update goes
 * to every client subscribed to it; a client that leaves gives its subscriptions up (upstream
 * too, when it was the last subscriber).
 */
export class ResourceSubscriptions {
  readonly #hub: HubServices;
  /** `<extension>\0<uri>` → the clients subscribed to it. */
  readonly #subscribers = new Map<string, Set<Peer>>();

  constructor(hub: HubServices) {
    this.#hub = hub;
  }

  async subscribe(
    peer: Peer,
    extension: string,
    uri: string,
    extra: DownstreamExtra,
  ): Promise<Record<string, unknown>> {
    const id = subscriptionId(extension, uri);
    let set = this.#subscribers.get(id);
    if (!set) {
      await this.#hub.forward(peer, extension, "resources/subscribe", { uri }, extra);
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
    const id = subscriptionId(extension, uri);
    const set = this.#subscribers.get(id);
    peer.subscriptions.delete(id);
    set?.delete(peer);
    if (set && set.size === 0) {
      this.#subscribers.delete(id);
      await this.#hub.forward(peer, extension, "resources/unsubscribe", { uri }, extra);
    } else if (!set) {
      // Not subscribed through us: the server answers as it would directly.
      await this.#hub.forward(peer, extension, "resources/unsubscribe", { uri }, extra);
    }
    return {};
  }

  /** A client left: its subscriptions end, upstream too where it was the last subscriber. */
  release(peer: Peer): void {
    for (const id of peer.subscriptions) {
      const set = this.#subscribers.get(id);
      set?.delete(peer);
      if (set && set.size === 0) {
        this.#subscribers.delete(id);
        const [extension, uri] = splitId(id);
        this.#hub.host
          .connection(extension)
          ?.forward("resources/unsubscribe", { uri }, { timeoutMs: this.#hub.requestTimeoutMs })
          .catch((error: unknown) => this.#hub.report(error));
      }
    }
    peer.subscriptions.clear();
  }

  /** `notifications/resources/updated` to every client subscribed to that resource. */
  relayUpdate(n: UpstreamNotification): void {
    const uri = n.params?.uri;
    if (typeof uri !== "string") return;
    const set = this.#subscribers.get(subscriptionId(n.extension, uri));
    if (!set) return;
    const message = { method: n.method, params: n.params ?? {} } as ServerNotification;
    for (const peer of set)
      peer.server.notification(message).catch((error: unknown) => this.#hub.report(error));
  }
}

function subscriptionId(extension: string, uri: string): string {
  return `${extension}\u0000${uri}`;
}

function splitId(id: string): [string, string] {
  const i = id.indexOf("\u0000");
  return [id.slice(0, i), id.slice(i + 1)];
}
