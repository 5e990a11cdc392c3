import {
  decodeEventOrThrow,
  REDUCER_VERSION,
  replay,
  type ToolledgerEventInput,
} from "@toolledger/core";
import { ev, withIds } from "@toolledger/core/testing";
import Database from "better-sqlite3";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../testing/tempDir.test-helpers.js";
import { SqliteEventStore } from "./sqliteEventStore.js";

describe("loadState (D7): folds from the latest Compacted event or a snapshot, equal to a full replay", () => {
  let dir: ReturnType<typeof tempDir>;
  let store: SqliteEventStore;
  beforeEach(() => {
    dir = tempDir();
    store = SqliteEventStore.open(dir.file("state.db"), { durability: "normal" });
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  const full = async (session: string) =>
    replay((await store.readStream(session)).map((e) => e.event));

  it("snapshots of another reducer version, other options or damaged ones are ignored (a cache, never the truth)", async () => {
    const file = store.file;
    await store.append("s", withIds([ev.added("github"), ev.fetched("github", 1, ["search"])]));
    await store.saveSnapshot("s");
    const withOtherKey = await store.loadState("s", { ownerMetaKey: "owner" });
    expect(withOtherKey.startedFrom).toBe("initial");
    expect(withOtherKey.state.ownerMetaKey).toBe("owner");
    await store.close();

    const raw = new Database(file);
    raw.prepare("INSERT INTO snapshots VALUES ('s', ?, 2, '{}', 'then')").run(REDUCER_VERSION + 1);
    raw.pragma("ignore_check_constraints = ON");
    raw
      .prepare("UPDATE snapshots SET state = '{broken' WHERE reducer_version = ?")
      .run(REDUCER_VERSION);
    raw.close();

    store = SqliteEventStore.open(file, { durability: "normal" });
    const loaded = await store.loadState("s");
    expect(loaded.startedFrom).toBe("initial");
    expect(loaded.state).toEqual(await full("s"));
    const check = new Database(file, { readonly: true });
    // Dropped at open: the other reducer version's snapshot.
    expect(check.prepare("SELECT reducer_version FROM snapshots").pluck().all()).toEqual([
      REDUCER_VERSION,
    ]);
    check.close();
  });

  it("property: with random snapshots and compactions, loadState equals replaying the whole stream", async () => {
    const names = ["a__x", "a__y", "b__z"];
    const event: fc.Arbitrary<ToolledgerEventInput> = fc.oneof(
      fc.constantFrom(ev.added("a"), ev.added("b"), ev.invalidated("a")),
      fc.integer({ min: 0, max: 3 }).map((v) => ev.fetched("a", v, ["x", "y"])),
      fc
        .tuple(fc.constantFrom("c1", "c2", "c3"), fc.subarray(names))
        .map(([c, n]) => ev.requested(c, n)),
      fc
        .tuple(fc.constantFrom("c1", "c2", "c3"), fc.boolean())
        .map(([c, ok]) => ev.responded(c, ok)),
      fc.constant(ev.cleared()),
      fc.tuple(fc.subarray(names), fc.subarray(["c1", "c2"])).map(([enabled, pending]) =>
        ev.compacted(
          enabled,
          pending.map((callId) => ({ callId, names: ["a__x"] })),
          ["c3"],
        ),
      ),
    );
    const step = fc.oneof(
      { weight: 8, arbitrary: event.map((e) => ({ e })) },
      { weight: 1, arbitrary: fc.constant({ snapshot: true as const }) },
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const session = `p${run++}`;
        const log: ToolledgerEventInput[] = [];
        for (const s of steps) {
          if ("snapshot" in s) await store.saveSnapshot(session);
          else {
            log.push(s.e);
            await store.append(session, withIds([s.e]));
          }
        }
        const loaded = await store.loadState(session);
        expect(loaded.version).toBe(log.length);
        expect(loaded.state).toEqual(replay(log.map((e) => decodeEventOrThrow(e))));
        expect(JSON.parse(JSON.stringify(loaded.state))).toEqual(loaded.state);
      }),
      { numRuns: 60 },
    );
  });
});
