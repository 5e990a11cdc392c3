import { statSync, truncateSync, writeFileSync } from "node:fs";
import { EventStoreError } from "@toolledger/core";
import { sampleBatch } from "@toolledger/core/testing";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../testing/tempDir.test-helpers.js";
import { SqliteEventStore } from "./sqliteEventStore.js";

/** The EventStoreError `run` throws (sync or async); fails the test when it throws none. */
async function storeError(run: () => unknown): Promise<EventStoreError> {
  let thrown: unknown = null;
  try {
    await run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(EventStoreError);
  return thrown as EventStoreError;
}

/** Rewrites a stored row behind the store's back (triggers and CHECKs off), as damage would. */
function damage(file: string, sql: string): void {
  const raw = new Database(file);
  try {
    raw.exec("DROP TRIGGER IF EXISTS events_refuse_update");
    raw.pragma("ignore_check_constraints = ON");
    raw.exec(sql);
  } finally {
    raw.close();
  }
}

describe("bad input: each a clear EventStoreError naming the file (and the position), never a crash or a silent skip", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.remove());

  async function storeWith(name: string, events = 3): Promise<string> {
    const file = dir.file(name);
    const store = SqliteEventStore.open(file);
    await store.append("session-1", sampleBatch("e", events));
    await store.close();
    return file;
  }

  it("a file that is not a database is NOT_A_DATABASE", async () => {
    const file = dir.file("notes.db");
    writeFileSync(file, "these are my notes, not a database\n".repeat(50));
    const error = await storeError(() => SqliteEventStore.open(file));
    expect(error.code).toBe("NOT_A_DATABASE");
    expect(error.message).toContain(file);
  });

  it("a SQLite database of another application is NOT_A_DATABASE", async () => {
    const file = dir.file("other.db");
    const raw = new Database(file);
    raw.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)");
    raw.close();
    const error = await storeError(() => SqliteEventStore.open(file));
    expect(error.code).toBe("NOT_A_DATABASE");
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/not a toolledger event store/);
  });

  it("a database from a newer schema version is SCHEMA_TOO_NEW and is left untouched", async () => {
    const file = await storeWith("newer.db");
    const raw = new Database(file);
    raw.pragma("user_version = 99");
    raw.close();
    const error = await storeError(() => SqliteEventStore.open(file));
    expect(error.code).toBe("SCHEMA_TOO_NEW");
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/schema version 99.*upgrade toolledger/);
    const check = new Database(file, { readonly: true });
    expect(check.pragma("user_version", { simple: true })).toBe(99);
    check.close();
  });

  it("a truncated file is STORE_CORRUPT, at open or at the first read", async () => {
    const file = await storeWith("truncated.db", 0);
    const store = SqliteEventStore.open(file);
    for (let i = 0; i < 20; i++) await store.append(`session-${i}`, sampleBatch(`b${i}`, 100));
    await store.close();
    truncateSync(file, Math.floor(statSync(file).size * 0.6));
    const error = await storeError(async () => {
      const reopened = SqliteEventStore.open(file);
      try {
        await reopened.readAll({ limit: 5000 });
      } finally {
        await reopened.close();
      }
    });
    expect(error.code).toBe("STORE_CORRUPT");
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/restore it from a backup/);
  });

  it("an event whose JSON is damaged in the table is STORE_CORRUPT with the file and both positions", async () => {
    const file = await storeWith("damaged.db");
    damage(file, `UPDATE events SET data = '{"type": "EnableTo' WHERE global_position = 2`);
    const store = SqliteEventStore.open(file);
    try {
      for (const read of [
        () => store.readStream("session-1"),
        () => store.readAll(),
        () => store.loadState("session-1"),
        () => store.auditEnables(),
      ]) {
        const error = await storeError(read);
        expect(error.code).toBe("STORE_CORRUPT");
        expect(error.message).toContain(file);
        expect(error.message).toMatch(
          /global position 2 \(stream "session-1", position 2\).*not valid JSON/,
        );
      }
      // Reads that stop before the damage still work.
      expect(await store.readStream("session-1", { maxCount: 1 })).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it("a stored event that no longer decodes, or whose type column disagrees, is STORE_CORRUPT", async () => {
    const file = await storeWith("undecodable.db");
    damage(
      file,
      `UPDATE events SET data = '{"type":"EnableToolsRequested","v":1,"callId":7}' WHERE global_position = 1`,
    );
    damage(file, `UPDATE events SET type = 'Cleared' WHERE global_position = 3`);
    const store = SqliteEventStore.open(file);
    try {
      const first = await storeError(() => store.readStream("session-1", { maxCount: 1 }));
      expect(first.code).toBe("STORE_CORRUPT");
      expect(first.message).toMatch(/global position 1 .*callId/);
      const third = await storeError(() => store.readStream("session-1", { fromPosition: 3 }));
      expect(third.code).toBe("STORE_CORRUPT");
      expect(third.message).toMatch(/global position 3 .*type column says Cleared/);
    } finally {
      await store.close();
    }
  });

  it("E2: a stored event of a newer schema version is SCHEMA_TOO_NEW, not skipped", async () => {
    const file = await storeWith("newer-event.db");
    damage(file, `UPDATE events SET data = json_set(data, '$.v', 2) WHERE global_position = 2`);
    const store = SqliteEventStore.open(file);
    try {
      const error = await storeError(() => store.readAll());
      expect(error.code).toBe("SCHEMA_TOO_NEW");
      expect(error.message).toMatch(/global position 2 .*upgrade toolledger/);
    } finally {
      await store.close();
    }
  });

  it("the events table refuses UPDATE and DELETE, and the CHECKs refuse invalid JSON", async () => {
    const file = await storeWith("append-only.db");
    const raw = new Database(file);
    try {
      expect(() => raw.exec("UPDATE events SET type = 'Cleared'")).toThrow(
        /append-only: UPDATE is refused/,
      );
      expect(() => raw.exec("DELETE FROM events")).toThrow(/append-only: DELETE is refused/);
      expect(() =>
        raw.exec(
          "INSERT INTO events (stream_id, stream_position, event_id, type, schema_version, data, metadata, recorded_at) VALUES ('s', 1, 'x', 'Cleared', 1, '{bad', '{}', 'now')",
        ),
      ).toThrow(/CHECK constraint failed/);
      expect(raw.prepare("SELECT count(*) AS n FROM events").get()).toEqual({ n: 3 });
    } finally {
      raw.close();
    }
  });

  it("a writer that cannot get the lock within the busy timeout gets STORE_BUSY, and nothing is written", async () => {
    const file = await storeWith("busy.db");
    const holder = new Database(file);
    const store = SqliteEventStore.open(file, { busyTimeoutMs: 50 });
    try {
      holder.exec("BEGIN IMMEDIATE");
      const error = await storeError(() => store.append("session-1", sampleBatch("late", 1)));
      expect(error.code).toBe("STORE_BUSY");
      expect(error.message).toContain(file);
      expect(error.message).toMatch(/retry/);
      holder.exec("COMMIT");
      expect(await store.append("session-1", sampleBatch("late", 1), 3)).toMatchObject({
        ok: true,
        nextExpectedVersion: 4,
      });
    } finally {
      await store.close();
      holder.close();
    }
  });

  it("a file in a missing directory is IO_ERROR naming the file", async () => {
    const file = dir.file("no/such/dir/store.db");
    const error = await storeError(() => SqliteEventStore.open(file));
    expect(error.code).toBe("IO_ERROR");
    expect(error.message).toContain(file);
  });
});

describe("append input the SQLite file could not keep exactly", () => {
  let dir: ReturnType<typeof tempDir>;
  let store: SqliteEventStore;
  beforeEach(() => {
    dir = tempDir();
    store = SqliteEventStore.open(dir.file("input.db"), { durability: "normal" });
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  it("an event id or stream id with a lone surrogate is INVALID_EVENT (UTF-8 text would change it and break retries)", async () => {
    const [event] = sampleBatch("x", 1);
    expect(await store.append("s", [event!, { ...event!, eventId: "bad\ud800id" }])).toMatchObject({
      ok: false,
      error: { code: "INVALID_EVENT", index: 1, path: "eventId" },
    });
    expect(await store.append("s\udc00", [event!])).toMatchObject({
      ok: false,
      error: { code: "INVALID_EVENT", path: "streamId" },
    });
    // NUL too, as in the PostgreSQL store, so an exported session imports into either.
    expect(await store.append("s", [{ ...event!, eventId: "a\u0000b" }])).toMatchObject({
      ok: false,
      error: { code: "INVALID_EVENT", path: "eventId" },
    });
    expect(await store.readAll()).toEqual([]);
  });

  it("non-ASCII ids and names round-trip, and their retry is idempotent", async () => {
    const batch = [
      {
        eventId: "café-🚀-1",
        event: {
          type: "EnableToolsRequested" as const,
          v: 1 as const,
          callId: "ç",
          names: ["client___🚀"],
        },
      },
    ];
    const first = await store.append("sessión 🚀", batch, "no_stream");
    expect(await store.append("sessión 🚀", batch, "no_stream")).toEqual(first);
    const [stored] = await store.readStream("sessión 🚀");
    expect(stored).toMatchObject({
      eventId: "café-🚀-1",
      streamId: "sessión 🚀",
      event: batch[0]!.event,
    });
  });

  it("an event that JSON cannot represent is INVALID_EVENT, not a raw error", async () => {
    const event = {
      type: "ToolsFetched" as const,
      v: 1 as const,
      extension: "a",
      startedAtVersion: 0,
      tools: [{ name: "t", inputSchema: { big: 10n } }],
    };
    expect(await store.append("s", [{ eventId: "big", event }])).toMatchObject({
      ok: false,
      error: { code: "INVALID_EVENT", index: 0 },
    });
  });
});
