import type { JSONRPCMessage, Progress } from "@modelcontextprotocol/client";

/**
 * G1: the progress of our requests, by the token we sent up with each. A report is routed as
 * it is read (see `interceptMessages`), to the relay of the request it belongs to.
 */
export class ProgressRouter {
  readonly #relays = new Map<string, (progress: Progress) => void>();
  readonly #onError: (error: Error) => void;
  #next = 0;

  /** `onError`: where a relay that throws is reported (where the SDK puts a throwing handler's error). */
  constructor(onError: (error: Error) => void) {
    this.#onError = onError;
  }

  /** A fresh token whose reports go to `relay` until it is released. */
  register(relay: (progress: Progress) => void): string {
    const token = `toolledger-${++this.#next}`;
    this.#relays.set(token, relay);
    return token;
  }

  release(token: string): void {
    this.#relays.delete(token);
  }

  /** Relays a `notifications/progress` carrying one of our tokens; false for anything else. */
  relay(message: JSONRPCMessage): boolean {
    const m = message as { method?: unknown; id?: unknown; params?: unknown };
    if (m.method !== "notifications/progress" || m.id !== undefined) return false;
    const params = m.params;
    if (typeof params !== "object" || params === null || Array.isArray(params)) return false;
    const { progressToken, ...progress } = params as Record<string, unknown>;
    const relay = this.#relays.get(String(progressToken));
    if (!relay || typeof progress.progress !== "number") return false;
    try {
      relay(progress as Progress);
    } catch (error) {
      this.#onError(new Error(`Uncaught error in progress handler: ${String(error)}`));
    }
    return true;
  }

  /** The same for a notification the SDK already parsed (its fallback handler). */
  relayParsed(params: Record<string, unknown> | undefined): void {
    const { progressToken, ...progress } = params ?? {};
    const relay = this.#relays.get(String(progressToken));
    if (relay && typeof progress.progress === "number") relay(progress as Progress);
  }
}
