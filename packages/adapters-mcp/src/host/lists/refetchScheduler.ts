/**
 * What one refetch run does for its key: fetch until the list is current. `quiet` resolves
 * once the key's list has not changed for a quiet period (at most the longest wait), so a
 * burst of `list_changed` costs one refetch, not one per notification. The period is the
 * debounce the first time in a run and grows eightfold each time after: a list that changed
 * again while it was being fetched is in a storm, whose pauses are no end.
 */
export type RefetchWork = (quiet: () => Promise<void>) => Promise<void>;

export interface RefetchSchedulerOptions {
  /** Quiet period that folds a burst of changes into one refetch. */
  debounceMs: number;
  /** The longest a refetch waits for a burst to end (a server that never stops changing). */
  maxWaitMs: number;
  /** Where a run's failure goes (runs are background work). */
  onError: (error: unknown) => void;
}

interface Slot {
  /** When the key's list last changed (ms, performance.now). */
  changedAt: number;
  /** The run in flight, if any. */
  running: Promise<void> | null;
  /** A change arrived while the run was in flight, after its last look: run once more. */
  again: RefetchWork | null;
  /** The run that waits for the burst to end before it starts. */
  timer: NodeJS.Timeout | undefined;
}

/**
 * One refetch run at a time per key (an extension's tools, its prompts, its resources): a
 * change starts a run after a quiet period, a change during a run makes it go once more, and
 * several callers of the same key share one run.
 */
export class RefetchScheduler {
  readonly #options: RefetchSchedulerOptions;
  readonly #slots = new Map<string, Slot>();
  #closed = false;

  constructor(options: RefetchSchedulerOptions) {
    this.#options = options;
  }

  /** `key`'s list changed: its run starts once the burst is over (or goes once more). */
  changed(key: string, work: RefetchWork): void {
    if (this.#closed) return;
    const slot = this.#slot(key);
    slot.changedAt = performance.now();
    if (slot.running) {
      slot.again = work;
      return;
    }
    if (slot.timer !== undefined) return;
    slot.timer = setTimeout(() => {
      slot.timer = undefined;
      void this.run(key, work).catch(this.#options.onError);
    }, this.#options.debounceMs);
  }

  /** Runs `key`'s work now, or joins the run in flight (which then goes once more). */
  run(key: string, work: RefetchWork): Promise<void> {
    const slot = this.#slot(key);
    if (slot.running) {
      slot.again = work;
      return slot.running;
    }
    clearTimeout(slot.timer);
    slot.timer = undefined;
    let done = false;
    const running = (async () => {
      let next: RefetchWork | null = work;
      try {
        let quiets = 0;
        const { debounceMs, maxWaitMs } = this.#options;
        const quiet = () => this.#quiet(slot, Math.min(maxWaitMs, debounceMs * 8 ** quiets++));
        while (next && !this.#closed) {
          slot.again = null;
          await next(quiet);
          next = slot.again;
        }
      } finally {
        done = true;
        slot.running = null;
        slot.again = null;
        this.#forget(key, slot);
      }
    })();
    // A run that ended before it yielded (a closed scheduler) must not stay "in flight".
    if (!done) slot.running = running;
    return running;
  }

  /** True while any key has a run in flight or waiting for its burst to end. */
  get busy(): boolean {
    for (const slot of this.#slots.values())
      if (slot.running !== null || slot.timer !== undefined) return true;
    return false;
  }

  /** Resolves once no run is in flight or waiting. */
  async settled(): Promise<void> {
    while (this.busy) {
      const running = [...this.#slots.values()].map((s) => s.running).filter((r) => r !== null);
      if (running.length > 0) await Promise.allSettled(running);
      else await new Promise((r) => setTimeout(r, this.#options.debounceMs));
    }
  }

  /** Drops `key`'s waiting run (its extension was removed or replaced). */
  cancel(key: string): void {
    const slot = this.#slots.get(key);
    if (!slot) return;
    clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.again = null;
    this.#forget(key, slot);
  }

  /** No new runs; waiting ones are dropped, runs in flight end after their current step. */
  close(): void {
    this.#closed = true;
    for (const key of [...this.#slots.keys()]) this.cancel(key);
  }

  #slot(key: string): Slot {
    let slot = this.#slots.get(key);
    if (!slot) {
      slot = { changedAt: Number.NEGATIVE_INFINITY, running: null, again: null, timer: undefined };
      this.#slots.set(key, slot);
    }
    return slot;
  }

  #forget(key: string, slot: Slot): void {
    if (slot.running === null && slot.timer === undefined && this.#slots.get(key) === slot)
      this.#slots.delete(key);
  }

  /** Resolves once `slot` saw no change for `periodMs`, or after the longest wait. */
  async #quiet(slot: Slot, periodMs: number): Promise<void> {
    const start = performance.now();
    for (;;) {
      const now = performance.now();
      const wait = Math.min(slot.changedAt + periodMs - now, start + this.#options.maxWaitMs - now);
      if (wait <= 0 || this.#closed) return;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}
