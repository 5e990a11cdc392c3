import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { APPLICATION_ID, SCHEMA_VERSION } from "../database/schema.js";
import { tempDir } from "../testing/tempDir.test-helpers.js";
import { SqliteEventStore } from "./sqliteEventStore.js";

describe("opening a store file", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.remove());

  it("creates the schema once, marked with the application id and schema version, in WAL mode", async () => {
    const file = dir.file("new.db");
    await SqliteEventStore.open(file).close();
    await SqliteEventStore.open(file).close();
    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.pragma("application_id", { simple: true })).toBe(APPLICATION_ID);
      expect(raw.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
      const objects = raw
        .prepare(
          "SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .all();
      expect(objects).toEqual([
        { type: "table", name: "events" },
        { type: "index", name: "events_compacted" },
        { type: "index", name: "events_lifecycle" },
        { type: "trigger", name: "events_refuse_delete" },
        { type: "trigger", name: "events_refuse_update" },
        { type: "table", name: "leases" },
        { type: "table", name: "snapshots" },
      ]);
      expect(
        raw
          .prepare("SELECT strict FROM pragma_table_list WHERE name IN ('events', 'snapshots')")
          .pluck()
          .all(),
      ).toEqual([1, 1]);
    } finally {
      raw.close();
    }
  });

  it('uses synchronous=FULL by default and NORMAL with durability "normal"', async () => {
    const full = SqliteEventStore.open(dir.file("full.db"));
    const normal = SqliteEventStore.open(dir.file("normal.db"), { durability: "normal" });
    try {
      expect(full.settings()).toEqual({
        journalMode: "wal",
        synchronous: "FULL",
        busyTimeoutMs: 5000,
        schemaVersion: SCHEMA_VERSION,
      });
      expect(normal.settings()).toMatchObject({ journalMode: "wal", synchronous: "NORMAL" });
    } finally {
      await full.close();
      await normal.close();
    }
  });
});
