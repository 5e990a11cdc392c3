import { statSync } from "node:fs";
import { replay } from "@toolledger/core";
import { sampleBatch } from "@toolledger/core/testing";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteEventStore } from "../eventStore/sqliteEventStore.js";
import { tempDir } from "../testing/tempDir.test-helpers.js";
import { pruneStore } from "./pruneStore.js";
import { readMaintenanceLog } from "./scrubStore.js";

describe("pruneStore: whole streams out, the rest intact, the space back", () => {
  const dirs: (() => void)[] = [];
  afterEach(() => {
    for (const remove of dirs.splice(0)) remove();
  });

  async function fixture(): Promise<string> {
    const dir = tempDir();
    dirs.push(dir.remove);
    const file = dir.file("events.db");
    const store = openSqliteEventStore(file);
    for (const stream of ["old-a", "keep", "old-b"]) {
      const result = await store.append(stream, sampleBatch(stream, 400), "no_stream");
      expect(result.ok).toBe(true);
    }
    await store.close();
    return file;
  }

  it("removes the named streams in one transaction, records it, keeps the file valid and append-only, and shrinks it", async () => {
    const file = await fixture();
    const size = statSync(file).size;
    const store = openSqliteEventStore(file);
    const kept = (await store.readStream("keep")).map((e) => e.event);
    await store.close();

    const report = pruneStore(file, ["old-a", "old-b"], { reason: "test", now: () => new Date(0) });
    expect(report.streams).toEqual([
      { streamId: "old-a", events: 400 },
      { streamId: "old-b", events: 400 },
    ]);
    expect(report.eventsDeleted).toBe(800);
    expect(report.bytesAfter).toBeLessThan(size);

    const db = new Database(file);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    // The append-only triggers are back: no single event can be removed by hand.
    expect(() => db.exec("DELETE FROM events WHERE stream_id = 'keep'")).toThrow(/append-only/);
    expect(() => db.exec("UPDATE events SET type = 'x'")).toThrow(/append-only/);
    db.close();

    const reopened = openSqliteEventStore(file);
    expect(await reopened.readStream("old-a")).toEqual([]);
    expect(replay((await reopened.readStream("keep")).map((e) => e.event))).toEqual(replay(kept));
    const appended = await reopened.append("keep", sampleBatch("more", 1), 400);
    expect(appended.ok).toBe(true);
    await reopened.close();

    expect(readMaintenanceLog(file)).toEqual([
      {
        id: 1,
        at: "1970-01-01T00:00:00.000Z",
        action: "prune",
        detail: { streams: ["old-a", "old-b"], eventsDeleted: 800, reason: "test" },
      },
    ]);
  });

  it("a dry run changes nothing; an unknown stream removes nothing; a file in use is refused", async () => {
    const file = await fixture();
    const dry = pruneStore(file, ["old-a"], { dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, eventsDeleted: 400, recordId: null });
    expect(() => pruneStore(file, ["old-a", "nope"])).toThrow(
      /no stream "nope"; nothing was removed/,
    );
    const store = openSqliteEventStore(file);
    await store.readStream("keep");
    expect(() => pruneStore(file, ["old-a"], { busyTimeoutMs: 50 })).toThrow(
      /open in another process/,
    );
    expect((await store.readStream("old-a")).length).toBe(400);
    await store.close();
    expect(readMaintenanceLog(file)).toEqual([]);
  });
});
