import { decodeEvent } from "../events/decodeEvent.js";
import type { ToolledgerEvent } from "../events/events.js";
import {
  type AppendResult,
  type EventStore,
  EventStoreError,
  type EventToAppend,
  type ExpectedVersion,
  type ReadAllOptions,
  type ReadStreamOptions,
  type StoredEvent,
} from "./eventStore.js";

export interface InMemoryEventStoreOptions {
  /** Supplies `recordedAt` (E2: the clock is the store's, not the reducer's). */
  now?: () => Date;
}

/** The EventStore contract in memory: for tests, embedding, and hosts without a disk. */
export class InMemoryEventStore implements EventStore {
  readonly #all: StoredEvent[] = [];
  readonly #streams = new Map<string, StoredEvent[]>();
  readonly #byEventId = new Map<string, StoredEvent>();
  readonly #now: () => Date;
  #closed = false;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.#now = options.now ?? (() => new Date());
  }

  async append(
    streamId: string,
    events: readonly EventToAppend[],
    expected: ExpectedVersion = "any",
  ): Promise<AppendResult> {
    this.#open();
    const n = events.length;
    const decoded = new Array<Decoded>(n);
    for (let index = 0; index < n; index++) {
      const e = events[index]!;
      const result = decodeEvent(e.event);
      if (!result.ok) {
        return {
          ok: false,
          error: {
            code: "INVALID_EVENT",
            index,
            path: result.error.path,
            message: `event ${index} (${e.eventId}): ${result.error.message}`,
          },
        };
      }
      decoded[index] = { eventId: e.eventId, event: result.event, metadata: e.metadata ?? {} };
    }
    const replayed = checkIdempotent(streamId, decoded, this.#byEventId);
    if (replayed) return replayed;
    const stream = this.#streams.get(streamId) ?? [];
    const actual = stream.length;
    if (!matches(expected, actual)) {
      return { ok: false, error: { code: "VERSION_CONFLICT", streamId, expected, actual } };
    }
    if (n === 0) {
      return {
        ok: true,
        nextExpectedVersion: actual,
        firstGlobalPosition: this.#all.length,
        lastGlobalPosition: this.#all.length,
      };
    }
    // One event (a call's start or end, most appends of a live host) cannot repeat an id.
    if (n > 1) {
      const seen = new Set<string>();
      for (const d of decoded) {
        if (seen.has(d.eventId)) {
          return {
            ok: false,
            error: {
              code: "DUPLICATE_EVENT",
              eventId: d.eventId,
              message: `event id ${d.eventId} appears twice in one batch`,
            },
          };
        }
        seen.add(d.eventId);
      }
    }
    const recordedAt = this.#now().toISOString();
    const first = this.#all.length + 1;
    for (const d of decoded) {
      const stored: StoredEvent = {
        streamId,
        streamPosition: stream.length + 1,
        globalPosition: this.#all.length + 1,
        eventId: d.eventId,
        event: d.event,
        metadata: d.metadata,
        recordedAt,
      };
      stream.push(stored);
      this.#all.push(stored);
      this.#byEventId.set(d.eventId, stored);
    }
    if (actual === 0) this.#streams.set(streamId, stream);
    return {
      ok: true,
      nextExpectedVersion: stream.length,
      firstGlobalPosition: first,
      lastGlobalPosition: this.#all.length,
    };
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    this.#open();
    const stream = this.#streams.get(streamId) ?? [];
    const from = Math.max(1, options.fromPosition ?? 1);
    const end = options.maxCount === undefined ? undefined : from - 1 + options.maxCount;
    return stream.slice(from - 1, end);
  }

  async readAll(options: ReadAllOptions = {}): Promise<StoredEvent[]> {
    this.#open();
    const after = Math.max(0, options.after ?? 0);
    return this.#all.slice(after, after + (options.limit ?? 1000));
  }

  async streamVersion(streamId: string): Promise<number> {
    this.#open();
    return this.#streams.get(streamId)?.length ?? 0;
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #open(): void {
    if (this.#closed)
      throw new EventStoreError("STORE_CLOSED", "the in-memory event store is closed");
  }
}

/** Whether a stream at `actual` satisfies `expected`. */
export function matches(expected: ExpectedVersion, actual: number): boolean {
  if (expected === "any") return true;
  if (expected === "no_stream") return actual === 0;
  if (expected === "stream_exists") return actual > 0;
  return expected === actual;
}

/** The content identity of an event for idempotent retries (id reuse with other content is a duplicate). */
export function fingerprintOf(
  streamId: string,
  event: ToolledgerEvent,
  metadata: Record<string, unknown>,
): string {
  return JSON.stringify([streamId, event, metadata]);
}

/** An event of a batch after decoding. */
interface Decoded {
  eventId: string;
  event: ToolledgerEvent;
  metadata: Record<string, unknown>;
}

/**
 * A retried batch (every id already stored, same content, consecutive) returns the original
 * result; an id reused with other content is DUPLICATE_EVENT. Returns null for a fresh batch.
 * Fingerprints are made only for ids already stored (a retry), never for fresh events.
 */
function checkIdempotent(
  streamId: string,
  batch: readonly Decoded[],
  byEventId: ReadonlyMap<string, StoredEvent>,
): AppendResult | null {
  let found = 0;
  for (const d of batch) {
    const prior = byEventId.get(d.eventId);
    if (!prior) continue;
    if (
      fingerprintOf(prior.streamId, prior.event, prior.metadata) !==
      fingerprintOf(streamId, d.event, d.metadata)
    ) {
      return {
        ok: false,
        error: {
          code: "DUPLICATE_EVENT",
          eventId: d.eventId,
          message: `event id ${d.eventId} is already stored with different content`,
        },
      };
    }
    found++;
  }
  if (found === 0) return null;
  if (found < batch.length) {
    return {
      ok: false,
      error: {
        code: "DUPLICATE_EVENT",
        eventId: batch.find((d) => byEventId.has(d.eventId))!.eventId,
        message: "the batch mixes stored and new event ids; retry the original batch exactly",
      },
    };
  }
  for (let i = 1; i < batch.length; i++) {
    const previous = byEventId.get(batch[i - 1]!.eventId)!;
    const current = byEventId.get(batch[i]!.eventId)!;
    if (current.streamPosition !== previous.streamPosition + 1) {
      return {
        ok: false,
        error: {
          code: "DUPLICATE_EVENT",
          eventId: batch[i]!.eventId,
          message:
            "the batch's event ids are stored, but not as one batch in this order; retry the original batch exactly",
        },
      };
    }
  }
  const first = byEventId.get(batch[0]!.eventId)!;
  const last = byEventId.get(batch[batch.length - 1]!.eventId)!;
  return {
    ok: true,
    nextExpectedVersion: last.streamPosition,
    firstGlobalPosition: first.globalPosition,
    lastGlobalPosition: last.globalPosition,
  };
}
