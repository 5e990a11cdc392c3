import { existsSync, readFileSync } from "node:fs";
import { sampleBatch } from "@toolledger/core/testing";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteEventStore } from "../eventStore/sqliteEventStore.js";
import { tempDir } from "../testing/tempDir.test-helpers.js";
import { readMaintenanceLog, type ScrubRedactor, scrubStore } from "./scrubStore.js";

// The mechanics of a scrub, with a literal redactor (the CLI's test runs the real one, with
// every encoding it covers).
const VALUE = "leaked-value-7f3a9c";

function literal(value: string): ScrubRedactor {
  const redact = (text: string) => text.replaceAll(value, "[redacted]");
  const walk = (v: unknown): unknown =>
    typeof v === "string"
      ? redact(v)
      : Array.isArray(v)
        ? v.map(walk)
        : v && typeof v === "object"
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k), walk(x)]))
          : v;
  return {
    finds: (text) => text.includes(value),
    redact,
    redactValue: <T>(v: T) => walk(v) as T,
  };
}

const options = (extra = {}) => ({
  redactor: literal(VALUE),
  forbidden: [VALUE],
  record: { fingerprint: "test" },
  ...extra,
});

describe("scrubStore", () => {
  let dir = tempDir();
  afterEach(() => {
    dir.remove();
    dir = tempDir();
  });

  async function leaky(): Promise<string> {
    const file = dir.file("leaky.db");
    const store = openSqliteEventStore(file);
    const events = sampleBatch("x", 4);
    events[1]!.event = {
      ...events[1]!.event,
      names: [`ext__${VALUE}`],
    } as (typeof events)[1]["event"];
    events[2]!.metadata = { note: `saw ${VALUE}` };
    expect((await store.append("s", events)).ok).toBe(true);
    expect((await store.append("clean", sampleBatch("y", 2))).ok).toBe(true);
    await store.close();
    return file;
  }

  it("rewrites the events that hold the value, restores the triggers, leaves no copy in the file or its WAL", async () => {
    const file = await leaky();
    expect(readFileSync(file).includes(VALUE)).toBe(true);
    const report = scrubStore(file, options());
    expect(report).toMatchObject({ eventsChanged: 2, streams: ["s"], integrity: ["ok"] });
    expect(report.recordId).toBe(1);
    expect(readFileSync(file).includes(VALUE)).toBe(false);
    expect(existsSync(`${file}-wal`) ? readFileSync(`${file}-wal`).includes(VALUE) : false).toBe(
      false,
    );

    const raw = new Database(file);
    try {
      expect(raw.pragma("integrity_check", { simple: true })).toBe("ok");
      const sql = (name: string) =>
        raw.prepare("SELECT sql FROM sqlite_schema WHERE name = ?").pluck().get(name);
      expect(sql("events_refuse_update")).toContain("append-only: UPDATE is refused");
      expect(() => raw.exec("UPDATE events SET data = data")).toThrow(/append-only/);
      expect(() => raw.exec("DELETE FROM maintenance")).toThrow(/append-only/);
    } finally {
      raw.close();
    }
    const store = openSqliteEventStore(file);
    const events = await store.readStream("s");
    expect(events[1]?.event).toMatchObject({ names: ["ext__[redacted]"] });
    expect(events[2]?.metadata).toEqual({ note: "saw [redacted]" });
    expect(await store.readStream("clean")).toHaveLength(2);
    await store.close();
    expect(readMaintenanceLog(file)).toMatchObject([
      { id: 1, action: "scrub", detail: { fingerprint: "test", eventsChanged: 2, streams: ["s"] } },
    ]);
  });

  it("a dry run changes nothing, not even the file's bytes", async () => {
    const file = await leaky();
    const before = readFileSync(file);
    expect(scrubStore(file, options({ dryRun: true }))).toMatchObject({
      dryRun: true,
      eventsChanged: 2,
      recordId: null,
    });
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readMaintenanceLog(file)).toEqual([]);
  });

  it("refuses a value whose removal would leave an invalid event, and changes nothing", async () => {
    const file = await leaky();
    const bad: ScrubRedactor = {
      finds: (t) => t.includes("EnableToolsRequested"),
      redact: (t) => t,
      redactValue: <T>(v: T) => ({ ...(v as object), type: "[redacted]" }) as T,
    };
    expect(() => scrubStore(file, { ...options(), redactor: bad })).toThrow(
      /would no longer be a valid event/,
    );
    const store = openSqliteEventStore(file);
    expect(await store.readStream("s")).toHaveLength(4);
    await store.close();
  });

  it("refuses a file another connection holds open", async () => {
    const file = await leaky();
    const open = openSqliteEventStore(file);
    await open.readStream("s");
    expect(() => scrubStore(file, options({ busyTimeoutMs: 100 }))).toThrow(
      expect.objectContaining({ code: "STORE_BUSY" }),
    );
    await open.close();
    expect(readFileSync(file).includes(VALUE)).toBe(true);
  });
});
