import { join } from "node:path";
import { decodeEvent, evolve, initialState, type ToolledgerEvent } from "@toolledger/core";
import Database from "better-sqlite3";
import { type BenchResult, errorLine, measured, notRun } from "./benchResult.js";
import { interleave, timeMs, timeMsAsync } from "./interleave.js";
import { scratchDir } from "./scratchDir.js";
import { sessionLog, sessionLogOptions } from "./sessionLog.js";

type StoreModule = typeof import("@toolledger/store-sqlite");
type Durability = "full" | "normal";

export const APPEND_EVENTS = 100_000;
export const BATCH = 100;
const STREAM = "session-1";

/** The first 100,000 events of a session, as a host would append them. */
export function appendWorkload(): ToolledgerEvent[] {
  return [...sessionLog(sessionLogOptions(APPEND_EVENTS))];
}

/** Raw better-sqlite3: the store's columns and unique keys, one prepared INSERT, no checks. */
export function rawAppend(
  file: string,
  durability: Durability,
  events: readonly ToolledgerEvent[],
): void {
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${durability === "full" ? "FULL" : "NORMAL"}`);
    db.exec(`CREATE TABLE events (
      global_position INTEGER PRIMARY KEY AUTOINCREMENT,
      stream_id TEXT NOT NULL, stream_position INTEGER NOT NULL, event_id TEXT NOT NULL UNIQUE,
      type TEXT NOT NULL, schema_version INTEGER NOT NULL, data TEXT NOT NULL,
      metadata TEXT NOT NULL, recorded_at TEXT NOT NULL, UNIQUE (stream_id, stream_position)
    ) STRICT`);
    const insert = db.prepare(
      "INSERT INTO events (stream_id, stream_position, event_id, type, schema_version, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    const appendBatch = db.transaction((from: number) => {
      const at = new Date().toISOString();
      const end = Math.min(from + BATCH, events.length);
      for (let i = from; i < end; i++) {
        const e = events[i]!;
        insert.run(STREAM, i + 1, `e${i}`, e.type, e.v, JSON.stringify(e), "{}", at);
      }
    });
    for (let from = 0; from < events.length; from += BATCH) appendBatch(from);
  } finally {
    db.close();
  }
}

/** The SQLite event store: batches of 100 with the expected stream version. */
export async function storeAppend(
  store: StoreModule,
  file: string,
  durability: Durability,
  events: readonly ToolledgerEvent[],
): Promise<void> {
  const s = store.openSqliteEventStore(file, { durability });
  try {
    for (let from = 0; from < events.length; from += BATCH) {
      const batch = events
        .slice(from, from + BATCH)
        .map((event, i) => ({ eventId: `e${from + i}`, event }));
      const r = await s.append(STREAM, batch, from);
      if (!r.ok) throw new Error(`append at ${from}: ${JSON.stringify(r.error)}`);
    }
  } finally {
    await s.close();
  }
}

/**
 * Benchmark 4: appending 100,000 events in batches of 100 with `durability` full and normal,
 * against raw better-sqlite3 inserting the same rows; and `loadState` of that session (its
 * latest `Compacted` is late) against folding every row from the start.
 */
export async function sqliteAppendLoad(
  rounds: number,
  events: readonly ToolledgerEvent[],
): Promise<BenchResult[]> {
  const names = {
    full: `append 100k events, batches of 100, durability full`,
    normal: `append 100k events, batches of 100, durability normal`,
    load: "loadState of a 100k-event session (late Compacted)",
  };
  const raw = "raw better-sqlite3, one prepared INSERT";
  let store: StoreModule;
  try {
    store = await import("@toolledger/store-sqlite");
  } catch (error) {
    const why = `@toolledger/store-sqlite does not load: ${errorLine(error)}`;
    return [
      notRun("4a", names.full, raw, why),
      notRun("4b", names.normal, raw, why),
      notRun("4c", names.load, "", why),
    ];
  }
  const tmp = scratchDir("sqlite");
  try {
    let n = 0;
    const fresh = () => join(tmp.dir, `bench-${n++}.db`);
    const results: BenchResult[] = [];
    for (const durability of ["full", "normal"] as const) {
      const r = await interleave(
        { rounds, warmup: 0 },
        async () =>
          events.length /
          ((await timeMsAsync(() => storeAppend(store, fresh(), durability, events))) / 1000),
        () => events.length / (timeMs(() => rawAppend(fresh(), durability, events)) / 1000),
      );
      results.push(
        measured({
          id: durability === "full" ? "4a" : "4b",
          name: names[durability],
          unit: "events/s",
          toolledger: r.toolledgerMedian,
          baseline: r.baselineMedian,
          baselineName: `${raw} (same columns and unique keys)`,
          target: { op: ">=", value: 0.7 },
          note: "store validates (zod), checks the expected version, json_valid CHECKs",
          details: { samples: r },
        }),
      );
    }

    const file = fresh();
    await storeAppend(store, file, "normal", events);
    const s = store.openSqliteEventStore(file);
    const db = new Database(file, { readonly: true });
    const rows = db.prepare<[string], { data: string }>(
      "SELECT data FROM events WHERE stream_id = ? ORDER BY stream_position",
    );
    let compactedAt = 0;
    const load = await interleave(
      { rounds: Math.max(rounds, 3), warmup: 1 },
      async () =>
        timeMsAsync(async () => {
          const loaded = await s.loadState(STREAM);
          compactedAt = loaded.compactedPosition ?? 0;
        }),
      () =>
        timeMs(() => {
          let state = initialState();
          for (const row of rows.iterate(STREAM)) {
            const d = decodeEvent(JSON.parse(row.data));
            if (!d.ok) throw new Error(d.error.message);
            state = evolve(state, d.event);
          }
        }),
    );
    db.close();
    await s.close();
    results.push(
      measured({
        id: "4c",
        name: names.load,
        unit: "ms",
        toolledger: load.toolledgerMedian,
        baseline: load.baselineMedian,
        baselineName: "SELECT every row, decode and fold from the start",
        note: `latest Compacted at position ${compactedAt} of ${events.length}`,
        details: { samples: load },
      }),
    );
    return results;
  } finally {
    tmp.remove();
  }
}
