/**
 * An extension's first start under `startExtensions`: when its first attempt is over (what
 * `whenStarted` waits for), and when its startup is over (listed, failed, waiting for its next
 * attempt or for authorization, or stopped: what a first list and a call naming its tools
 * wait for, up to its startup grace).
 */
export class StartupTracker {
  #firstAttempt: Promise<void> | null = null;
  #firstAttemptOver = true;
  #at: number | null = null;
  #over: Promise<void> | null = null;
  #end: (() => void) | null = null;

  /** Begins it now; returns what marks its first attempt over. */
  begin(): () => void {
    let done!: () => void;
    this.#firstAttemptOver = false;
    this.#firstAttempt = new Promise<void>((resolve) => {
      done = () => {
        this.#firstAttemptOver = true;
        resolve();
      };
    });
    this.#at = performance.now();
    this.#over = new Promise<void>((resolve) => {
      this.#end = resolve;
    });
    return done;
  }

  /** Settles when its first attempt is over, whatever its outcome (null: never begun). */
  get firstAttempt(): Promise<void> | null {
    return this.#firstAttempt;
  }

  /** False while its first attempt is in progress. */
  get firstAttemptOver(): boolean {
    return this.#firstAttemptOver;
  }

  /** Its startup is over: whoever waits in `listedWithin` stops waiting. */
  end(): void {
    this.#end?.();
    this.#end = null;
    this.#over = null;
  }

  /**
   * Resolves when its startup is over or `graceMs` after it began, whichever is first; null
   * when there is nothing to wait for (never begun, over, or past its grace).
   */
  overWithin(graceMs: number, now = performance.now()): Promise<void> | null {
    if (this.#over === null || this.#at === null) return null;
    const left = this.#at + graceMs - now;
    if (left <= 0) return null;
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      this.#over,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, left);
      }),
    ]).finally(() => clearTimeout(timer));
  }
}
