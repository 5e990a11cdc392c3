// The contract of what hosts and the CLI use of a durable store beyond the log (the core's
// `SessionStore`): the session listing and D7's state loading. Both SQL stores run it.
import { replay, type SessionStore } from "@toolledger/core";
import { afterEach, describe, expect, it } from "vitest";
import { ev, withIds } from "./events.js";
import { sampleBatch } from "./samples.js";

export interface SessionStoreContractOptions {
  /** Frees what `makeStore` made (files), after each test. */
  dispose?: () => Promise<void> | void;
}

/**
 * Registers the SessionStore contract as a vitest `describe`. `makeStore` returns a fresh,
 * empty store for each test, recording times with `now` when given.
 */
export function describeSessionStoreContract(
  name: string,
  makeStore: (options: { now?: () => Date }) => SessionStore | Promise<SessionStore>,
  options: SessionStoreContractOptions = {},
): void {
  describe(`SessionStore contract: ${name}`, () => {
    const open: SessionStore[] = [];
    const fresh = async (now?: () => Date): Promise<SessionStore> => {
      const store = await makeStore(now === undefined ? {} : { now });
      open.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of open.splice(0)) await store.close();
      await options.dispose?.();
    });
    const full = async (store: SessionStore, session: string) =>
      replay((await store.readStream(session)).map((e) => e.event));

    it("listSessions gives every stream with its count and first/last recorded times, in order of creation", async () => {
      let minute = 0;
      const store = await fresh(() => new Date(Date.UTC(2026, 10, 29, 10, minute++)));
      expect(await store.listSessions()).toEqual([]);
      await store.append("b", sampleBatch("b0", 2));
      await store.append("a", sampleBatch("a0", 1));
      await store.append("b", sampleBatch("b1", 3));
      expect(await store.listSessions()).toEqual([
        {
          sessionId: "b",
          eventCount: 5,
          firstGlobalPosition: 1,
          lastGlobalPosition: 6,
          firstRecordedAt: "2026-11-29T10:00:00.000Z",
          lastRecordedAt: "2026-11-29T10:02:00.000Z",
        },
        {
          sessionId: "a",
          eventCount: 1,
          firstGlobalPosition: 3,
          lastGlobalPosition: 3,
          firstRecordedAt: "2026-11-29T10:01:00.000Z",
          lastRecordedAt: "2026-11-29T10:01:00.000Z",
        },
      ]);
    });

    it("D7: an empty session loads the initial state at version 0", async () => {
      const store = await fresh();
      const loaded = await store.loadState("nobody");
      expect(loaded).toMatchObject({ version: 0, startedFrom: "initial", folded: 0, skipped: 0 });
      expect(loaded.state).toEqual(replay([]));
    });

    it("D7: loadState skips the conversation events before the latest Compacted, folds the registry events, starts from a snapshot, and equals a full replay", async () => {
      const store = await fresh();
      await store.append(
        "s",
        withIds([
          ev.added("github"),
          ev.fetched("github", 1, ["create_issue", "search"]),
          ev.requested("c1", ["github__search"]),
          ev.responded("c1", true),
          ev.requested("c2", ["github__create_issue"]),
          ev.compacted(
            ["github__search"],
            [{ callId: "c2", names: ["github__create_issue"] }],
            ["c1"],
          ),
          ev.added("notes"),
          ev.responded("c2", true),
        ]),
      );
      const loaded = await store.loadState("s");
      expect(loaded).toMatchObject({
        version: 8,
        startedFrom: "initial",
        compactedPosition: 6,
        folded: 5,
        skipped: 3,
      });
      expect(loaded.state).toEqual(await full(store, "s"));
      expect(loaded.state.enabled).toEqual(["github__create_issue", "github__search"]);
      // R11: both ExtensionAdded events were folded (one version each).
      expect(loaded.state.version).toBe(2);
      expect((await store.saveSnapshot("s")).version).toBe(8);
      await store.append("s", withIds([ev.cleared()]));
      const fromSnapshot = await store.loadState("s");
      expect(fromSnapshot).toMatchObject({
        startedFrom: "snapshot",
        snapshotPosition: 8,
        folded: 1,
      });
      expect(fromSnapshot.state).toEqual(await full(store, "s"));
    });

    it("D7: a snapshot is used, then only later events are folded; a newer one is never replaced by an older one", async () => {
      const store = await fresh();
      await store.append(
        "s",
        withIds([
          ev.added("github"),
          ev.fetched("github", 1, ["search"]),
          ev.requested("c1", ["github__search"]),
        ]),
      );
      expect((await store.saveSnapshot("s")).version).toBe(3);
      await store.append("s", withIds([ev.responded("c1", true), ev.added("notes")]));
      const loaded = await store.loadState("s");
      expect(loaded).toMatchObject({
        version: 5,
        startedFrom: "snapshot",
        snapshotPosition: 3,
        folded: 2,
      });
      expect(loaded.state).toEqual(await full(store, "s"));
      await store.saveSnapshot("s");
      expect((await store.loadState("s")).snapshotPosition).toBe(5);
    });

    it("L3: a lease is taken, renewed until ttl from the store's clock, read back by holder, and released", async () => {
      let ms = Date.UTC(2026, 11, 3, 9, 0, 0);
      const store = await fresh(() => new Date(ms));
      const renewal = {
        holder: "host-a",
        hostname: "box",
        pid: 42,
        pidSpace: "boot/ns",
        ttlMs: 15_000,
      };
      expect(await store.renewLease(renewal)).toEqual({
        holder: "host-a",
        hostname: "box",
        pid: 42,
        pidSpace: "boot/ns",
        renewedAt: "2026-12-03T09:00:00.000Z",
        expiresAt: "2026-12-03T09:00:15.000Z",
      });
      ms += 5_000;
      await store.renewLease({ ...renewal, pidSpace: null });
      await store.renewLease({ ...renewal, holder: "host-b", pid: 7 });
      const read = await store.readLeases(["host-a", "host-c"]);
      expect(read.now).toBe("2026-12-03T09:00:05.000Z");
      expect(read.leases).toEqual([
        {
          holder: "host-a",
          hostname: "box",
          pid: 42,
          pidSpace: null,
          renewedAt: "2026-12-03T09:00:05.000Z",
          expiresAt: "2026-12-03T09:00:20.000Z",
        },
      ]);
      await store.releaseLease("host-a");
      expect((await store.readLeases(["host-a", "host-b"])).leases.map((l) => l.holder)).toEqual([
        "host-b",
      ]);
      expect((await store.readLeases([])).leases).toEqual([]);
    });

    it("L3: openConversations lists each conversation whose latest opening was not closed, with its host and last event time", async () => {
      let minute = 0;
      const store = await fresh(() => new Date(Date.UTC(2026, 11, 3, 9, minute++)));
      const opening = (type: "ConversationStarted" | "ConversationResumed", registry: string) =>
        ({ type, v: 1, registryStream: registry }) as const;
      const closed = { type: "ConversationClosed", v: 1, reason: "client left" } as const;
      expect(await store.openConversations()).toEqual([]);
      await store.append(
        "conv-a",
        withIds([opening("ConversationStarted", "host-1"), ev.cleared()]),
      );
      await store.append("conv-b", withIds([opening("ConversationStarted", "host-1"), closed]));
      await store.append(
        "conv-c",
        withIds([
          opening("ConversationStarted", "host-1"),
          closed,
          opening("ConversationResumed", "host-2"),
        ]),
      );
      await store.append("host-1", withIds([ev.added("notes")]));
      await store.append("conv-a", withIds([ev.cleared()]));
      expect(await store.openConversations()).toEqual([
        {
          conversationId: "conv-a",
          registryStream: "host-1",
          lastRecordedAt: "2026-12-03T09:04:00.000Z",
        },
        {
          conversationId: "conv-c",
          registryStream: "host-2",
          lastRecordedAt: "2026-12-03T09:02:00.000Z",
        },
      ]);
    });
  });
}
