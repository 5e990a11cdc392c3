import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { EventStoreError } from "@toolledger/core";
import { sampleBatch } from "@toolledger/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pruneStore } from "../maintenance/pruneStore.js";
import {
  DIST_INDEX,
  makeReadOnly,
  makeWritable,
  runAsReader,
} from "../testing/readOnlyFolder.test-helpers.js";
import { tempDir } from "../testing/tempDir.test-helpers.js";
import { SqliteEventStore } from "./sqliteEventStore.js";

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

/** What a reader process reports about one open: the sessions and events it read, or the error. */
const READ_SCRIPT = (file: string, readOnly: boolean) => `
import { openSqliteEventStore } from ${JSON.stringify(DIST_INDEX)};
try {
  const store = openSqliteEventStore(${JSON.stringify(file)}, ${readOnly ? "{ readOnly: true }" : "{ verify: true }"});
  const sessions = (await store.listSessions()).map((s) => [s.sessionId, s.eventCount]);
  const events = (await store.readStream("s1")).map((e) => e.eventId);
  await store.close();
  console.log(JSON.stringify({ sessions, events }));
} catch (error) {
  console.log(JSON.stringify({ code: error.code, message: error.message }));
}`;

describe("a store opened read-only writes nothing, to the file or its folder", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => {
    makeWritable(dir.path);
    dir.remove();
  });

  async function storeWith(name: string): Promise<string> {
    const file = dir.file(name);
    const writer = SqliteEventStore.open(file);
    await writer.append("s1", sampleBatch("a", 3));
    await writer.append("s2", sampleBatch("b", 2));
    await writer.close();
    return file;
  }

  it("reads what a writer wrote; appends and snapshots are STORE_READ_ONLY and the file keeps its bytes", async () => {
    const file = await storeWith("s.db");
    const before = readFileSync(file);
    const store = SqliteEventStore.open(file, { readOnly: true });
    // URI names were turned on while SQLite loaded, and the variable removed again: processes
    // a host starts do not inherit it.
    expect(process.env.SQLITE_USE_URI).toBeUndefined();
    try {
      expect(store.readOnly).toBe(true);
      expect((await store.listSessions()).map((s) => [s.sessionId, s.eventCount])).toEqual([
        ["s1", 3],
        ["s2", 2],
      ]);
      expect((await store.readStream("s1")).map((e) => e.eventId)).toEqual(["a-0", "a-1", "a-2"]);
      expect((await store.loadState("s1")).version).toBe(3);
      const append = await storeError(() => store.append("s1", sampleBatch("c", 1)));
      expect(append.code).toBe("STORE_READ_ONLY");
      expect(append.message).toContain(`${file}: appending to "s1" refused`);
      const snapshot = await storeError(() => store.saveSnapshot("s1"));
      expect(snapshot.code).toBe("STORE_READ_ONLY");
    } finally {
      await store.close();
    }
    expect(readFileSync(file).equals(before)).toBe(true);
    const reopened = SqliteEventStore.open(file);
    expect(await reopened.streamVersion("s1")).toBe(3);
    await reopened.close();
  });

  it("a missing or empty file is STORE_NOT_FOUND and nothing is created", async () => {
    const missing = dir.file("missing.db");
    expect((await storeError(() => SqliteEventStore.open(missing, { readOnly: true }))).code).toBe(
      "STORE_NOT_FOUND",
    );
    expect(existsSync(missing)).toBe(false);
    const empty = dir.file("empty.db");
    writeFileSync(empty, "");
    const error = await storeError(() => SqliteEventStore.open(empty, { readOnly: true }));
    expect(error.code).toBe("STORE_NOT_FOUND");
    expect(error.message).toContain("an empty SQLite file");
    expect(readFileSync(empty).length).toBe(0);
  });

  it("the reader runs what a checkout inside a private (0700) folder holds, and a read-only folder stops its writes (issue 34, point 11)", () => {
    // Root runs the reader without its privileges; as `nobody`, it could not reach the
    // checkout when a 0700 folder (root's home) holds it: the tests failed with MODULE_NOT_FOUND.
    const checkout = join(dir.path, "private", "checkout");
    mkdirSync(join(checkout, "dist"), { recursive: true });
    writeFileSync(join(checkout, "dist", "answer.mjs"), "export const answer = 42;\n");
    chmodSync(join(dir.path, "private"), 0o700);
    const archive = join(dir.path, "archive");
    mkdirSync(archive);
    writeFileSync(join(archive, "kept.txt"), "kept");
    makeReadOnly(archive);
    try {
      const attempt = (what: string) =>
        `(() => { try { ${what}; return "written"; } catch (error) { return error.code; } })()`;
      const out = runAsReader(`
import { existsSync, writeFileSync } from "node:fs";
const { answer } = await import(${JSON.stringify(pathToFileURL(join(checkout, "dist", "answer.mjs")).href)});
console.log(JSON.stringify({
  answer,
  seen: existsSync(${JSON.stringify(join(checkout, "dist", "answer.mjs"))}),
  create: ${attempt(`writeFileSync(${JSON.stringify(join(archive, "new.txt"))}, "x")`)},
  overwrite: ${attempt(`writeFileSync(${JSON.stringify(join(archive, "kept.txt"))}, "x")`)},
}));`);
      expect(out).toEqual({ answer: 42, seen: true, create: "EACCES", overwrite: "EACCES" });
      expect(readFileSync(join(archive, "kept.txt"), "utf8")).toBe("kept");
    } finally {
      makeWritable(archive);
      chmodSync(join(dir.path, "private"), 0o755);
    }
  });

  it("in a read-only folder: a reader reads the file in place; a writer is STORE_READ_ONLY naming the folder", async () => {
    const file = await storeWith("s.db");
    const before = readFileSync(file);
    makeReadOnly(dir.path);
    expect(runAsReader(READ_SCRIPT(file, true))).toEqual({
      sessions: [
        ["s1", 3],
        ["s2", 2],
      ],
      events: ["a-0", "a-1", "a-2"],
    });
    const writer = runAsReader(READ_SCRIPT(file, false)) as { code: string; message: string };
    expect(writer.code).toBe("STORE_READ_ONLY");
    expect(writer.message).toContain(
      `${file}: cannot write to the event store: the file is read-only`,
    );
    expect(readdirSync(dir.path).sort()).toEqual(["s.db"]);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it("a writer in a read-only folder over a writable file is refused for the folder, before SQLite", async () => {
    const file = await storeWith("s.db");
    makeReadOnly(dir.path);
    chmodSync(file, 0o666);
    const writer = runAsReader(READ_SCRIPT(file, false)) as { code: string; message: string };
    expect(writer.code).toBe("STORE_READ_ONLY");
    expect(writer.message).toContain(`its folder ${dir.path} is read-only`);
  });

  it("a read-only folder whose -wal holds events not in the file: STORE_READ_ONLY saying to copy both, never a silent partial read", async () => {
    const file = await storeWith("s.db");
    // A copy taken while a writer had unmerged events in its WAL (no -shm beside it).
    const writer = SqliteEventStore.open(file);
    await writer.append("s1", sampleBatch("late", 2));
    const copy = tempDir();
    try {
      copyFileSync(file, copy.file("s.db"));
      copyFileSync(`${file}-wal`, copy.file("s.db-wal"));
      await writer.close();
      makeReadOnly(copy.path);
      const read = runAsReader(READ_SCRIPT(copy.file("s.db"), true)) as {
        code: string;
        message: string;
      };
      expect(read.code).toBe("STORE_READ_ONLY");
      expect(read.message).toContain(`holds events not yet merged into the file`);
      expect(read.message).toContain("copy");
    } finally {
      makeWritable(copy.path);
      copy.remove();
    }
  });

  it("in a read-only folder: the maintenance log and a dry-run prune read in place; a prune says it cannot write", async () => {
    const file = await storeWith("s.db");
    pruneStore(file, ["s2"], { reason: "test" });
    makeReadOnly(dir.path);
    const out = runAsReader(`
import { pruneStore, readMaintenanceLog } from ${JSON.stringify(DIST_INDEX)};
const log = readMaintenanceLog(${JSON.stringify(file)}).map((r) => r.action);
const dry = pruneStore(${JSON.stringify(file)}, ["s1"], { dryRun: true }).eventsDeleted;
let real;
try { pruneStore(${JSON.stringify(file)}, ["s1"]); real = "pruned"; } catch (error) { real = error.code + ": " + error.message; }
console.log(JSON.stringify({ log, dry, real }));`) as { log: string[]; dry: number; real: string };
    expect(out.log).toEqual(["prune"]);
    expect(out.dry).toBe(3);
    expect(out.real).toMatch(
      /^STORE_READ_ONLY: .*cannot write to the event store: the file is read-only/,
    );
    expect(readdirSync(dir.path).filter((n) => !n.endsWith("-checked"))).toEqual(["s.db"]);
  });
});
