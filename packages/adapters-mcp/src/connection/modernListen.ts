import type {
  Client,
  McpSubscription,
  ServerCapabilities,
  SubscriptionFilter,
} from "@modelcontextprotocol/client";
import type { ConnectOptions } from "./connectionTypes.js";

/**
 * V1: a modern (2026-07-28) server sends no change notification unsolicited: they come on a
 * `subscriptions/listen` stream. This one asks for every list_changed the server declares;
 * what arrives goes to the client's notification handlers, the very ones a legacy server's
 * unsolicited `list_changed` reaches (routeIncoming), so both eras feed the same
 * invalidation. A stream the server ends is opened again (backoff up to 30 s) and, since
 * changes may have been missed meanwhile, `missed` is told once it is back.
 */
export class ModernListen {
  readonly #client: Client;
  readonly #filter: SubscriptionFilter;
  readonly #missed: () => void;
  readonly #onerror: (error: Error) => void;
  #subscription: McpSubscription | null = null;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    client: Client,
    capabilities: ServerCapabilities,
    options: Pick<ConnectOptions, "onListChanged" | "onNotification">,
  ) {
    this.#client = client;
    this.#filter = {
      ...(capabilities.tools?.listChanged ? { toolsListChanged: true as const } : {}),
      ...(capabilities.prompts?.listChanged ? { promptsListChanged: true as const } : {}),
      ...(capabilities.resources?.listChanged ? { resourcesListChanged: true as const } : {}),
    };
    // A stream opened again may have missed changes: every list is treated as changed.
    this.#missed = () => {
      options.onListChanged?.();
      options.onNotification?.({ method: "notifications/prompts/list_changed" });
      options.onNotification?.({ method: "notifications/resources/list_changed" });
    };
    this.#onerror = (error) => client.onerror?.(error);
  }

  /** Whether the server declares any list that can change. */
  get wanted(): boolean {
    return Object.keys(this.#filter).length > 0;
  }

  /** Opens the stream (resolves once the server acknowledged it, or failed to). */
  async open(timeoutMs: number): Promise<void> {
    if (!this.wanted) return;
    await this.#open(timeoutMs, 1_000, false);
  }

  async #open(timeoutMs: number, retryMs: number, resync: boolean): Promise<void> {
    if (this.#stopped) return;
    try {
      const subscription = await this.#client.listen(this.#filter, { timeout: timeoutMs });
      if (this.#stopped) {
        await subscription.close();
        return;
      }
      this.#subscription = subscription;
      if (resync) this.#missed();
      void subscription.closed.then((cause) => {
        this.#subscription = null;
        if (cause !== "local") this.#later(timeoutMs, 1_000);
      });
    } catch (error) {
      if (this.#stopped) return;
      this.#onerror(
        new Error(
          `subscriptions/listen failed (${error instanceof Error ? error.message : String(error)}); trying again in ${retryMs} ms`,
        ),
      );
      this.#later(timeoutMs, retryMs);
    }
  }

  #later(timeoutMs: number, retryMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(
      () => void this.#open(timeoutMs, Math.min(retryMs * 2, 30_000), true),
      retryMs,
    );
    this.#timer.unref?.();
  }

  /** The connection is closing: no more streams. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    const subscription = this.#subscription;
    this.#subscription = null;
    if (subscription) void subscription.close().catch(() => undefined);
  }
}
