/**
 * A4: the time a server waits for the user's authorization: a promise that settles when a
 * token arrives, and a watch on the token store's file for one another process brings
 * (`toolledger auth login` in a terminal). Checks run only when the file changed.
 */
export class AuthorizationWait {
  readonly #intervalMs: number;
  readonly #changedAt: () => number;
  readonly #look: () => void;
  #current: { promise: Promise<void>; resolve: () => void; held: string | undefined } | null = null;
  #watch: NodeJS.Timeout | undefined;
  #seenAt = 0;

  constructor(options: { intervalMs: number; changedAt: () => number; look: () => void }) {
    this.#intervalMs = options.intervalMs;
    this.#changedAt = options.changedAt;
    this.#look = options.look;
  }

  /** Whether the server waits for the user now. */
  get active(): boolean {
    return this.#current !== null;
  }

  /** The token that was refused when the wait began (a token still equal to it is no news). */
  get held(): string | undefined {
    return this.#current?.held;
  }

  /** Settles when the wait ends (at once when there is none). */
  get done(): Promise<void> {
    return this.#current?.promise ?? Promise.resolve();
  }

  /** Starts waiting (no-op while waiting). */
  enter(held: string | undefined): void {
    if (this.#current) return;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => {
      resolve = r;
    });
    this.#current = { promise, resolve, held };
    this.#seenAt = this.#changedAt();
    clearInterval(this.#watch);
    this.#watch = setInterval(() => {
      const at = this.#changedAt();
      if (at === this.#seenAt) return;
      this.#seenAt = at;
      this.#look();
    }, this.#intervalMs);
    this.#watch.unref?.();
  }

  /** A token is there: the wait ends and the watch stops. False when there was no wait. */
  settle(): boolean {
    const current = this.#current;
    this.#current = null;
    this.stop();
    current?.resolve();
    return current !== null;
  }

  stop(): void {
    clearInterval(this.#watch);
    this.#watch = undefined;
  }
}
