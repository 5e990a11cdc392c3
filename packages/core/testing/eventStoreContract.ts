// The store-contract suite: one set of tests every EventStore must pass (the in-memory store
// and the SQL stores run it).

// Imported by the package's own name, as a consumer imports it: this subpath is built and
// shipped beside the main entry, never from its sources.
import {
  type EventStore,
  EventStoreError,
  type EventToAppend,
  type ToolledgerEventInput,
} from "@toolledger/core";
import { afterEach, describe, expect, it } from "vitest";
import { checkAgainstStoreModel } from "./eventStoreModel.js";
import { sampleBatch, sampleEvent } from "./samples.js";

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
      await checkAgainstStoreModel(fresh, reopen, options.numRuns ?? 25);
    });
  });
}
