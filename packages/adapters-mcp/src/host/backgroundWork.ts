import type { Subject } from "rxjs";
import { type AdapterError, asAdapterError } from "../adapterError.js";

/** A host's background work: its failures go to `errors`, and `settled` waits for it. */
export class BackgroundWork {
  readonly #running = new Set<Promise<unknown>>();
  readonly #errors: Subject<AdapterError>;

  constructor(errors: Subject<AdapterError>) {
    this.#errors = errors;
  }

  track(work: Promise<unknown>): void {
    const tracked = work.then(
      () => undefined,
      (error: unknown) => this.report(error),
    );
    this.#running.add(tracked);
    void tracked.finally(() => this.#running.delete(tracked));
  }

  /** A failure of background work, for `errors$` (a closed session's is expected). */
  report(error: unknown): void {
    const e = asAdapterError(error);
    if (e.code !== "SESSION_CLOSED") this.#errors.next(e);
  }

  get busy(): boolean {
    return this.#running.size > 0;
  }

  /** Resolves once the work running now is over. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#running]);
  }
}
