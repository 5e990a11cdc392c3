// The store-contract suite: one set of tests every EventStore must pass (the in-memory, SQLite
// and PostgreSQL stores run it). Exposed as `@toolledger/core/testing` for tests only.

// Imported by the package's own name, as a consumer imports it: this subpath is built and
// shipped beside the main entry, never from its sources.
import {
  type AppendResult,
  type EventStore,
  EventStoreError,
  type EventToAppend,
  type ExpectedVersion,
  type StoredEvent,
  type ToolledgerEventInput,
} from "@toolledger/core";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { sampleBatch, sampleEvent } from "./samples.js";

export { ev, withIds } from "./events.js";
export { type FindLeaksOptions, findLeaks } from "./findLeaks.js";
export { initializeBody, MCP_POST_HEADERS, postInitialize } from "./mcpHttp.js";
export { exited, lines, spawnWorker } from "./processes.js";
export { fileUrlLiteral, type ReadmeExample, runReadmeExample } from "./readmeExample.js";
export { sampleBatch, sampleEvent } from "./samples.js";
export {
  describeSessionStoreContract,
  type SessionStoreContractOptions,
} from "./sessionStoreContract.js";
export {
  allReady,
  expectAcknowledgedBatches,
  expectAllExitCleanly,
  expectOneWinnerPerVersion,
  expectWinnersStored,
  type WorkerRun,
  watchWorker,
} from "./storeWorkerRuns.js";
export { anyJson, toolLike } from "./toolArbitrary.js";

export interface EventStoreContractOptions {
  /** Closes `store` and opens the same storage again; given for persistent stores only. */
  reopen?: (store: EventStore) => Promise<EventStore>;
  /** Frees what `makeStore` made (files), after each test. */
  dispose?: () => Promise<void> | void;
  /** fast-check runs of the model-based property. Default 25. */
  numRuns?: number;
}

/**
 * Registers the store contract (E1/E2 and the EventStore interface) as a vitest `describe`.
 * `makeStore` returns a fresh, empty store for each test.
 */
export function describeEventStoreContract(
  name: string,
  makeStore: () => EventStore | Promise<EventStore>,
  options: EventStoreContractOptions = {},
): void {
  describe(`EventStore contract: ${name}`, () => {
    const open: EventStore[] = [];
    const fresh = async (): Promise<EventStore> => {
      const store = await makeStore();
      open.push(store);
      return store;
    };
    const reopen = async (store: EventStore): Promise<EventStore> => {
      if (!options.reopen) return store;
      const next = await options.reopen(store);
      open.push(next);
      return next;
    };
    afterEach(async () => {
      for (const store of open.splice(0)) await store.close();
      await options.dispose?.();
    });

    it("a stream that was never written has version 0 and no events", async () => {
      const store = await fresh();
      expect(await store.streamVersion("s")).toBe(0);
      expect(await store.readStream("s")).toEqual([]);
      expect(await store.readAll()).toEqual([]);
    });

    it("no_stream appends to a new stream at positions 1..n with increasing global positions", async () => {
      const store = await fresh();
      const result = await store.append("s", sampleBatch("a", 3), "no_stream");
      expect(result).toEqual({
        ok: true,
        nextExpectedVersion: 3,
        firstGlobalPosition: 1,
        lastGlobalPosition: 3,
      });
      const events = await store.readStream("s");
      expect(
        events.map((e) => [e.streamId, e.streamPosition, e.globalPosition, e.eventId]),
      ).toEqual([
        ["s", 1, 1, "a-0"],
        ["s", 2, 2, "a-1"],
        ["s", 3, 3, "a-2"],
      ]);
      expect(await store.streamVersion("s")).toBe(3);
    });

    it("no_stream on a stream with events is VERSION_CONFLICT with expected and actual; nothing is written", async () => {
      const store = await fresh();
      await store.append("s", sampleBatch("a", 2));
      const result = await store.append("s", sampleBatch("b", 1), "no_stream");
      expect(result).toEqual({
        ok: false,
        error: { code: "VERSION_CONFLICT", streamId: "s", expected: "no_stream", actual: 2 },
      });
      expect(await store.streamVersion("s")).toBe(2);
      expect(await store.readAll()).toHaveLength(2);
    });

    it("stream_exists conflicts on an empty stream and appends to one with events", async () => {
      const store = await fresh();
      expect(await store.append("s", sampleBatch("a", 1), "stream_exists")).toEqual({
        ok: false,
        error: { code: "VERSION_CONFLICT", streamId: "s", expected: "stream_exists", actual: 0 },
      });
      await store.append("s", sampleBatch("b", 1), "no_stream");
      const result = await store.append("s", sampleBatch("c", 2), "stream_exists");
      expect(result).toMatchObject({ ok: true, nextExpectedVersion: 3 });
    });

    it("an exact version appends when it matches and conflicts otherwise", async () => {
      const store = await fresh();
      expect(await store.append("s", sampleBatch("a", 2), 0)).toMatchObject({
        ok: true,
        nextExpectedVersion: 2,
      });
      expect(await store.append("s", sampleBatch("b", 1), 1)).toEqual({
        ok: false,
        error: { code: "VERSION_CONFLICT", streamId: "s", expected: 1, actual: 2 },
      });
      expect(await store.append("s", sampleBatch("c", 1), 3)).toEqual({
        ok: false,
        error: { code: "VERSION_CONFLICT", streamId: "s", expected: 3, actual: 2 },
      });
      expect(await store.append("s", sampleBatch("d", 1), 2)).toMatchObject({
        ok: true,
        nextExpectedVersion: 3,
      });
      expect((await store.readStream("s")).map((e) => e.eventId)).toEqual(["a-0", "a-1", "d-0"]);
    });

    it('"any" (the default) appends whatever the version', async () => {
      const store = await fresh();
      expect(await store.append("s", sampleBatch("a", 1))).toMatchObject({ ok: true });
      expect(await store.append("s", sampleBatch("b", 1), "any")).toMatchObject({
        ok: true,
        nextExpectedVersion: 2,
      });
    });

    it("retrying a batch returns the original result and writes nothing, even with a stale expected version", async () => {
      const store = await fresh();
      await store.append("s", sampleBatch("x", 1));
      const first = await store.append("s", sampleBatch("a", 2), 1);
      await store.append("s", sampleBatch("b", 1));
      const retry = await store.append("s", sampleBatch("a", 2), 1);
      expect(first).toEqual({
        ok: true,
        nextExpectedVersion: 3,
        firstGlobalPosition: 2,
        lastGlobalPosition: 3,
      });
      expect(retry).toEqual(first);
      expect(await store.streamVersion("s")).toBe(4);
      expect(await store.readAll()).toHaveLength(4);
    });

    it("an event id reused with other content is DUPLICATE_EVENT, in the same or another stream", async () => {
      const store = await fresh();
      await store.append("s", sampleBatch("a", 1));
      const otherContent = await store.append("s", [
        { eventId: "a-0", event: sampleEvent("other") },
      ]);
      expect(otherContent).toMatchObject({
        ok: false,
        error: { code: "DUPLICATE_EVENT", eventId: "a-0" },
      });
      const otherStream = await store.append("t", sampleBatch("a", 1));
      expect(otherStream).toMatchObject({
        ok: false,
        error: { code: "DUPLICATE_EVENT", eventId: "a-0" },
      });
      const otherMetadata = await store.append("s", [
        { eventId: "a-0", event: sampleEvent("a-0"), metadata: { by: "someone" } },
      ]);
      expect(otherMetadata).toMatchObject({ ok: false, error: { code: "DUPLICATE_EVENT" } });
      expect(await store.readAll()).toHaveLength(1);
      expect(await store.streamVersion("t")).toBe(0);
    });

    it("a batch mixing stored and new ids is DUPLICATE_EVENT and writes nothing", async () => {
      const store = await fresh();
      await store.append("s", sampleBatch("a", 2));
      const mixed = [...sampleBatch("a", 2), ...sampleBatch("b", 1)];
      expect(await store.append("s", mixed)).toMatchObject({
        ok: false,
        error: { code: "DUPLICATE_EVENT", eventId: "a-0" },
      });
      const newFirst = [...sampleBatch("b", 1), ...sampleBatch("a", 1)];
      expect(await store.append("s", newFirst)).toMatchObject({
        ok: false,
        error: { code: "DUPLICATE_EVENT", eventId: "a-0" },
      });
      expect(await store.readAll()).toHaveLength(2);
    });

    it("stored ids retried in another order are DUPLICATE_EVENT (a retry repeats the batch exactly)", async () => {
      const store = await fresh();
      const batch = sampleBatch("a", 2);
      await store.append("s", batch);
      const reordered = [batch[1]!, batch[0]!];
      expect(await store.append("s", reordered)).toMatchObject({
        ok: false,
        error: { code: "DUPLICATE_EVENT" },
      });
      expect(await store.readAll()).toHaveLength(2);
    });

    it("the same id twice in one batch is DUPLICATE_EVENT and writes nothing", async () => {
      const store = await fresh();
      const batch = [...sampleBatch("a", 2), sampleBatch("a", 1)[0]!];
      expect(await store.append("s", batch)).toMatchObject({
        ok: false,
        error: { code: "DUPLICATE_EVENT", eventId: "a-0" },
      });
      expect(await store.readAll()).toEqual([]);
    });

    it("E1/E2: an invalid event fails the whole batch, naming its index and field; nothing is written", async () => {
      const store = await fresh();
      const bad = (event: unknown): EventToAppend => ({
        eventId: "bad",
        event: event as ToolledgerEventInput,
      });
      const cases: [unknown, string][] = [
        [{ type: "ExtensionAdded", v: 1, name: "x", kind: "stdio" }, "configFingerprint"],
        [{ type: "NoSuchEvent", v: 1 }, "type"],
        [{ type: "Cleared", v: 2 }, "v"],
        [{ type: "EnableToolsRequested", v: 1, callId: "c", names: "a" }, "names"],
        ["not an object", ""],
      ];
      for (const [event, path] of cases) {
        const result = await store.append("s", [...sampleBatch("ok", 1), bad(event)]);
        expect(result).toMatchObject({
          ok: false,
          error: { code: "INVALID_EVENT", index: 1, path },
        });
        if (!result.ok)
          expect(result.error.code === "INVALID_EVENT" && result.error.message).toMatch(
            /event 1 \(bad\)/,
          );
      }
      expect(await store.readAll()).toEqual([]);
      expect(await store.streamVersion("s")).toBe(0);
    });

    it("stores events decoded (schema defaults applied), metadata as given, recordedAt as ISO-8601", async () => {
      const store = await fresh();
      await store.append("s", [
        {
          eventId: "e1",
          event: {
            type: "ExtensionAdded",
            v: 1,
            name: "GitHub",
            kind: "stdio",
            configFingerprint: "fp",
          },
          metadata: { actor: "host", n: 1, nested: { ok: true } },
        },
        { eventId: "e2", event: { type: "Cleared", v: 1, at: "2026-01-01T00:00:00.000Z" } },
      ]);
      const [first, second] = await store.readStream("s");
      expect(first!.event).toEqual({
        type: "ExtensionAdded",
        v: 1,
        name: "GitHub",
        kind: "stdio",
        exposeUnprefixed: false,
        hidden: false,
        availableTools: [],
        configFingerprint: "fp",
      });
      expect(first!.metadata).toEqual({ actor: "host", n: 1, nested: { ok: true } });
      expect(second!.metadata).toEqual({});
      expect(second!.event).toEqual({ type: "Cleared", v: 1, at: "2026-01-01T00:00:00.000Z" });
      expect(new Date(first!.recordedAt).toISOString()).toBe(first!.recordedAt);
    });

    it("an empty batch succeeds, writes nothing and reports the current positions", async () => {
      const store = await fresh();
      await store.append("t", sampleBatch("a", 2));
      expect(await store.append("s", [], "no_stream")).toEqual({
        ok: true,
        nextExpectedVersion: 0,
        firstGlobalPosition: 2,
        lastGlobalPosition: 2,
      });
      expect(await store.append("s", [], "stream_exists")).toMatchObject({
        ok: false,
        error: { code: "VERSION_CONFLICT", actual: 0 },
      });
      expect(await store.streamVersion("s")).toBe(0);
    });

    it("readStream reads from a position, at most maxCount events", async () => {
      const store = await fresh();
      await store.append("s", sampleBatch("a", 5));
      const ids = async (from?: number, max?: number) =>
        (
          await store.readStream("s", {
            ...(from === undefined ? {} : { fromPosition: from }),
            ...(max === undefined ? {} : { maxCount: max }),
          })
        ).map((e) => e.streamPosition);
      expect(await ids()).toEqual([1, 2, 3, 4, 5]);
      expect(await ids(3)).toEqual([3, 4, 5]);
      expect(await ids(2, 2)).toEqual([2, 3]);
      expect(await ids(6)).toEqual([]);
      expect(await ids(1, 0)).toEqual([]);
    });

    it("readAll pages after a global position across interleaved streams, in append order", async () => {
      const store = await fresh();
      await store.append("s", sampleBatch("a", 2));
      await store.append("t", sampleBatch("b", 3));
      await store.append("s", sampleBatch("c", 1));
      const all = await store.readAll();
      expect(all.map((e) => [e.streamId, e.streamPosition, e.globalPosition])).toEqual([
        ["s", 1, 1],
        ["s", 2, 2],
        ["t", 1, 3],
        ["t", 2, 4],
        ["t", 3, 5],
        ["s", 3, 6],
      ]);
      const pages: number[][] = [];
      let after = 0;
      for (;;) {
        const page = await store.readAll({ after, limit: 4 });
        if (page.length === 0) break;
        pages.push(page.map((e) => e.globalPosition));
        after = page[page.length - 1]!.globalPosition;
      }
      expect(pages).toEqual([
        [1, 2, 3, 4],
        [5, 6],
      ]);
    });

    it("a closed store refuses every call with STORE_CLOSED", async () => {
      const store = await fresh();
      await store.close();
      const calls: (() => Promise<unknown>)[] = [
        () => store.append("s", sampleBatch("a", 1)),
        () => store.readStream("s"),
        () => store.readAll(),
        () => store.streamVersion("s"),
      ];
      for (const call of calls) {
        const error = await call().then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(EventStoreError);
        expect((error as EventStoreError).code).toBe("STORE_CLOSED");
      }
    });

    if (options.reopen) {
      it("keeps every acknowledged event across close and reopen", async () => {
        let store = await fresh();
        const result = await store.append("s", sampleBatch("a", 3), "no_stream");
        const before = await store.readAll();
        store = await reopen(store);
        expect(await store.readAll()).toEqual(before);
        expect(await store.streamVersion("s")).toBe(3);
        expect(await store.append("s", sampleBatch("a", 3), "no_stream")).toEqual(result);
        expect(await store.append("s", sampleBatch("b", 1), 3)).toMatchObject({
          ok: true,
          nextExpectedVersion: 4,
          firstGlobalPosition: 4,
        });
      });
    }

    it("model-based: random appends, retries, reads (and reopens) agree with a simple model", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 30 }), async (ops) => {
          let store = await fresh();
          const model = new StoreModel();
          for (const op of ops) {
            if (op.kind === "append" || op.kind === "retry" || op.kind === "reuse") {
              const attempt = model.attempt(op);
              if (!attempt) continue;
              const actual = await store.append(attempt.streamId, attempt.events, attempt.expected);
              expect(actual).toEqual(
                model.append(attempt.streamId, attempt.events, attempt.expected),
              );
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
        { numRuns: options.numRuns ?? 25 },
      );
    });
  });
}

/** Positions are contiguous per stream (1, 2, …) and global positions strictly increase. */
export function assertLogInvariants(all: readonly StoredEvent[]): void {
  const next = new Map<string, number>();
  let previous = 0;
  for (const e of all) {
    expect(e.globalPosition).toBeGreaterThan(previous);
    previous = e.globalPosition;
    const expected = next.get(e.streamId) ?? 1;
    expect(e.streamPosition).toBe(expected);
    next.set(e.streamId, expected + 1);
  }
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
