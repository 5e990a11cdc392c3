// The model-based property of the store contract: random appends, retries, reads and
// reopens against a model of the contract written as plainly as possible.
import type {
  AppendResult,
  EventStore,
  EventToAppend,
  ExpectedVersion,
  StoredEvent,
} from "@toolledger/core";
import fc from "fast-check";
import { expect } from "vitest";
import { assertLogInvariants } from "./assertLogInvariants.js";
import { sampleBatch, sampleEvent } from "./samples.js";

/**
 * Runs `numRuns` random operation sequences on stores from `fresh` (reopened with `reopen`)
 * and checks every result and read against the model.
 */
export async function checkAgainstStoreModel(
  fresh: () => Promise<EventStore>,
  reopen: (store: EventStore) => Promise<EventStore>,
  numRuns: number,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 30 }), async (ops) => {
      let store = await fresh();
      const model = new StoreModel();
      for (const op of ops) {
        if (op.kind === "append" || op.kind === "retry" || op.kind === "reuse") {
          const attempt = model.attempt(op);
          if (!attempt) continue;
          const actual = await store.append(attempt.streamId, attempt.events, attempt.expected);
          expect(actual).toEqual(model.append(attempt.streamId, attempt.events, attempt.expected));
        } else if (op.kind === "readStream") {
          const got = await store.readStream(op.stream, {
            fromPosition: op.from,
            maxCount: op.max,
          });
          expect(got.map(summary)).toEqual(model.readStream(op.stream, op.from, op.max));
        } else if (op.kind === "readAll") {
          const got = await store.readAll({ after: op.after, limit: op.limit });
          expect(got.map(summary)).toEqual(model.readAll(op.after, op.limit));
        } else {
          store = await reopen(store);
        }
      }
      const all = await store.readAll({ limit: 10_000 });
      assertLogInvariants(all);
      expect(all.map(summary)).toEqual(model.readAll(0, 10_000));
      for (const stream of STREAMS) {
        expect(await store.streamVersion(stream)).toBe(model.version(stream));
      }
    }),
    { numRuns },
  );
}

const STREAMS = ["s1", "s2", "s3"] as const;

type ExpectedMode = "any" | "no_stream" | "stream_exists" | "exact" | "exact_wrong";

type Operation =
  | { kind: "append"; stream: string; size: number; mode: ExpectedMode }
  | { kind: "retry"; pick: number; mode: ExpectedMode }
  | { kind: "reuse"; pick: number }
  | { kind: "readStream"; stream: string; from: number; max: number }
  | { kind: "readAll"; after: number; limit: number }
  | { kind: "reopen" };

const stream = fc.constantFrom(...STREAMS);
const mode = fc.constantFrom<ExpectedMode>(
  "any",
  "no_stream",
  "stream_exists",
  "exact",
  "exact_wrong",
);
const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("append" as const),
      stream,
      size: fc.integer({ min: 0, max: 4 }),
      mode,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("retry" as const), pick: fc.nat(), mode }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("reuse" as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("readStream" as const),
      stream,
      from: fc.integer({ min: 1, max: 12 }),
      max: fc.integer({ min: 0, max: 6 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("readAll" as const),
      after: fc.integer({ min: 0, max: 30 }),
      limit: fc.integer({ min: 1, max: 8 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "reopen" as const }) },
);

type Summary = [streamId: string, streamPosition: number, globalPosition: number, eventId: string];

function summary(e: StoredEvent): Summary {
  return [e.streamId, e.streamPosition, e.globalPosition, e.eventId];
}

interface ModelEvent {
  streamId: string;
  streamPosition: number;
  globalPosition: number;
  eventId: string;
  content: string;
}

/** The contract, written as plainly as possible. */
class StoreModel {
  readonly all: ModelEvent[] = [];
  readonly byId = new Map<string, ModelEvent>();
  readonly batches: { streamId: string; events: EventToAppend[] }[] = [];
  #counter = 0;

  version(streamId: string): number {
    return this.all.filter((e) => e.streamId === streamId).length;
  }

  attempt(
    op: Extract<Operation, { kind: "append" | "retry" | "reuse" }>,
  ): { streamId: string; events: EventToAppend[]; expected: ExpectedVersion } | null {
    if (op.kind === "append") {
      const prefix = `m${this.#counter++}`;
      const events = sampleBatch(prefix, op.size);
      this.batches.push({ streamId: op.stream, events });
      return { streamId: op.stream, events, expected: this.expected(op.stream, op.mode) };
    }
    if (this.batches.length === 0) return null;
    const batch = this.batches[op.pick % this.batches.length]!;
    if (op.kind === "retry") {
      return {
        streamId: batch.streamId,
        events: batch.events,
        expected: this.expected(batch.streamId, op.mode),
      };
    }
    if (batch.events.length === 0) return null;
    // The first id of an earlier batch with other content.
    const events = [
      { eventId: batch.events[0]!.eventId, event: sampleEvent(`reused-${this.#counter++}`) },
    ];
    return { streamId: batch.streamId, events, expected: "any" };
  }

  expected(streamId: string, m: ExpectedMode): ExpectedVersion {
    if (m === "exact") return this.version(streamId);
    if (m === "exact_wrong") return this.version(streamId) + 1;
    return m;
  }

  append(streamId: string, events: EventToAppend[], expected: ExpectedVersion): AppendResult {
    const content = (e: EventToAppend) => JSON.stringify([streamId, e.event, e.metadata ?? {}]);
    const stored = events.map((e) => this.byId.get(e.eventId));
    if (stored.some((s, i) => s && s.content !== content(events[i]!))) {
      const i = stored.findIndex((s, j) => s && s.content !== content(events[j]!));
      return dup(events[i]!.eventId);
    }
    if (stored.some((s) => s)) {
      if (stored.some((s) => !s)) return dup(events[stored.findIndex((s) => s)]!.eventId);
      const found = stored as ModelEvent[];
      for (let i = 1; i < found.length; i++) {
        if (found[i]!.streamPosition !== found[i - 1]!.streamPosition + 1)
          return dup(events[i]!.eventId);
      }
      return {
        ok: true,
        nextExpectedVersion: found.at(-1)!.streamPosition,
        firstGlobalPosition: found[0]!.globalPosition,
        lastGlobalPosition: found.at(-1)!.globalPosition,
      };
    }
    const actual = this.version(streamId);
    const ok =
      expected === "any" ||
      (expected === "no_stream" && actual === 0) ||
      (expected === "stream_exists" && actual > 0) ||
      expected === actual;
    if (!ok) return { ok: false, error: { code: "VERSION_CONFLICT", streamId, expected, actual } };
    const head = this.all.length;
    for (const [i, e] of events.entries()) {
      const m: ModelEvent = {
        streamId,
        streamPosition: actual + i + 1,
        globalPosition: head + i + 1,
        eventId: e.eventId,
        content: content(e),
      };
      this.all.push(m);
      this.byId.set(e.eventId, m);
    }
    return {
      ok: true,
      nextExpectedVersion: actual + events.length,
      firstGlobalPosition: events.length === 0 ? head : head + 1,
      lastGlobalPosition: head + events.length,
    };
  }

  readStream(streamId: string, from: number, max: number): Summary[] {
    return this.all
      .filter((e) => e.streamId === streamId && e.streamPosition >= from)
      .slice(0, max)
      .map(modelSummary);
  }

  readAll(after: number, limit: number): Summary[] {
    return this.all
      .filter((e) => e.globalPosition > after)
      .slice(0, limit)
      .map(modelSummary);
  }
}

function modelSummary(e: ModelEvent): Summary {
  return [e.streamId, e.streamPosition, e.globalPosition, e.eventId];
}

function dup(eventId: string): AppendResult {
  return {
    ok: false,
    error: { code: "DUPLICATE_EVENT", eventId, message: expect.any(String) as unknown as string },
  };
}
