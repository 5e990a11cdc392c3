import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type StoredEvent, subscribe, type ToolledgerEvent } from "@toolledger/core";
import { type BenchResult, errorLine, measured, notRun } from "./benchResult.js";
import { interleave, timeMsAsync } from "./interleave.js";
import { scratchDir } from "./scratchDir.js";
import { percentile } from "./stats.js";

type StoreModule = typeof import("@toolledger/store-postgres");
type TestingModule = typeof import("@toolledger/store-postgres/testing");

const BATCH = 100;
const WRITERS = 4;
/** Lag: batches of 10 events, one every 5 ms, followed by one subscriber. */
const LAG_BATCHES = 400;
const LAG_BATCH = 10;
const LAG_EVERY_MS = 5;
export const BENCH_URL_ENV = "TOOLLEDGER_BENCH_PG_URL";

/**
 * Benchmark 12, the PostgreSQL store: (a) appending 100,000 events in batches of 100 against
 * raw multi-row INSERTs into the same tables with the same driver; (b) four writer processes
 * at once against one; (c, d) subscription lag from commit to delivery, LISTEN/NOTIFY-woken
 * against the same catch-up loop polling. A throwaway cluster (fsync on, commit timestamps
 * tracked), or the server in $TOOLLEDGER_BENCH_PG_URL.
 */
export async function postgresStore(
  rounds: number,
  events: readonly ToolledgerEvent[],
): Promise<BenchResult[]> {
  const names = {
    append: "append 100k events, batches of 100, PostgreSQL (fsync on)",
    writers: `append 100k events, ${WRITERS} writer processes at once vs 1`,
    lag50: "subscription lag, commit → delivery, p50",
    lag99: "subscription lag, commit → delivery, p99",
  };
  const raw = "raw multi-row INSERTs, same tables and driver";
  let store: StoreModule;
  let testing: TestingModule;
  try {
    store = await import("@toolledger/store-postgres");
    testing = await import("@toolledger/store-postgres/testing");
  } catch (error) {
    const why = `@toolledger/store-postgres does not load: ${errorLine(error)}`;
    return [
      notRun("12a", names.append, raw, why, { op: ">=", value: 0.7 }),
      notRun("12b", names.writers, "one writer", why),
      notRun("12c", names.lag50, "polling", why),
      notRun("12d", names.lag99, "polling", why),
    ];
  }
  const given = process.env[BENCH_URL_ENV];
  const cluster = given
    ? null
    : await testing.startThrowawayCluster({ settings: { track_commit_timestamp: "on" } });
  const url = given ?? cluster!.url;
  const tmp = scratchDir("postgres");
  let n = 0;
  const schema = () => `bench_${process.pid}_${n++}`;
  try {
    const results: BenchResult[] = [];
    const batches: import("@toolledger/store-postgres/testing").RawBatch[] = [];
    for (let from = 0; from < events.length; from += BATCH) {
      const slice = events.slice(from, from + BATCH);
      batches.push({
        ids: slice.map((_, i) => `e${from + i}`),
        types: slice.map((e) => e.type),
        data: slice.map((e) => JSON.stringify(e)),
      });
    }
    const storeAppend = async () => {
      const s = await store.openPostgresEventStore(url, { schema: schema(), poolSize: 1 });
      try {
        return (
          events.length /
          ((await timeMsAsync(async () => {
            for (let from = 0; from < events.length; from += BATCH) {
              const batch = events
                .slice(from, from + BATCH)
                .map((event, i) => ({ eventId: `e${from + i}`, event }));
              const r = await s.append("session-1", batch, from);
              if (!r.ok) throw new Error(`append at ${from}: ${JSON.stringify(r.error)}`);
            }
          })) /
            1000)
        );
      } finally {
        await s.close();
      }
    };
    const rawAppend = async () => {
      const target = schema();
      // Created first (outside the timing), as the store's open is outside its timing too.
      await (await store.openPostgresEventStore(url, { schema: target })).close();
      return (
        events.length /
        ((await timeMsAsync(() => testing.rawAppend(url, target, "session-1", batches))) / 1000)
      );
    };
    const append = await interleave({ rounds, warmup: 1 }, storeAppend, rawAppend);
    results.push(
      measured({
        id: "12a",
        name: names.append,
        unit: "events/s",
        toolledger: append.toolledgerMedian,
        baseline: append.baselineMedian,
        baselineName: raw,
        target: { op: ">=", value: 0.7 },
        note: "store validates (zod), takes the head lock, checks version and ids, NOTIFYs",
        details: { samples: append },
      }),
    );

    // 12b: four processes, 25,000 events each to their own streams, against one process.
    const quarter = events.slice(0, events.length / WRITERS);
    const file = join(tmp.dir, "quarter.json");
    writeFileSync(file, JSON.stringify(quarter));
    const all = join(tmp.dir, "all.json");
    writeFileSync(all, JSON.stringify(events));
    const writers = async (count: number, source: string) => {
      const target = schema();
      await (await store.openPostgresEventStore(url, { schema: target })).close();
      const children = Array.from({ length: count }, (_, i) =>
        spawn(
          process.execPath,
          [testing.STORE_WORKER, "append-file", target, `w${i}`, source, String(BATCH)],
          { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, TOOLLEDGER_WORKER_URL: url } },
        ),
      );
      const outputs = children.map((child) => {
        let out = "";
        child.stdout!.on("data", (c: Buffer) => {
          out += c.toString();
        });
        child.stderr!.on("data", (c: Buffer) => {
          out += c.toString();
        });
        return () => out;
      });
      await Promise.all(
        outputs.map(
          (out, i) =>
            new Promise<void>((resolve, reject) => {
              const check = () => (out().includes("ready\n") ? resolve() : undefined);
              children[i]!.stdout!.on("data", check);
              children[i]!.once("exit", (code) =>
                reject(new Error(`writer exited ${code}: ${out()}`)),
              );
            }),
        ),
      );
      const start = performance.now();
      for (const child of children) child.stdin!.write("go\n");
      const codes = await Promise.all(
        children.map((child) => new Promise<number | null>((r) => child.once("exit", r))),
      );
      const ms = performance.now() - start;
      if (codes.some((c) => c !== 0))
        throw new Error(`a writer failed: ${outputs.map((o) => o()).join("\n")}`);
      return events.length / (ms / 1000);
    };
    const parallel = await interleave(
      { rounds: Math.max(1, rounds - 1), warmup: 0 },
      () => writers(WRITERS, file),
      () => writers(1, all),
    );
    results.push(
      measured({
        id: "12b",
        name: names.writers,
        unit: "events/s",
        toolledger: parallel.toolledgerMedian,
        baseline: parallel.baselineMedian,
        baselineName: "one writer process, the same 100k events",
        note: "appends serialise on the head lock (commit order = position order); extra writers overlap validation and round trips",
        details: { samples: parallel },
      }),
    );

    // 12c/12d: lag from commit (the server's commit timestamp) to delivery.
    const lag = async (woken: boolean) => {
      const target = schema();
      const writer = await store.openPostgresEventStore(url, { schema: target, poolSize: 1 });
      const reader = await store.openPostgresEventStore(url, { schema: target, poolSize: 1 });
      const delivered = new Map<number, number>();
      const controller = new AbortController();
      const total = LAG_BATCHES * LAG_BATCH;
      const source = woken
        ? reader.subscribe({ signal: controller.signal })
        : subscribe(reader, { signal: controller.signal, minIdleMs: 50, maxIdleMs: 1000 });
      const following = (async () => {
        for await (const batch of source as AsyncIterable<StoredEvent[]>) {
          const at = performance.timeOrigin + performance.now();
          for (const e of batch) delivered.set(e.globalPosition, at);
          if (delivered.size >= total) controller.abort();
        }
      })();
      for (let b = 0; b < LAG_BATCHES; b++) {
        const batch = events
          .slice(b * LAG_BATCH, (b + 1) * LAG_BATCH)
          .map((event, i) => ({ eventId: `lag-${b}-${i}`, event }));
        const r = await writer.append("live", batch);
        if (!r.ok) throw new Error(JSON.stringify(r.error));
        await new Promise((resolve) => setTimeout(resolve, LAG_EVERY_MS));
      }
      await following;
      await writer.close();
      await reader.close();
      const committed = await testing.commitTimes(url, target, [...delivered.keys()]);
      const lags: number[] = [];
      for (const [position, at] of delivered) {
        const c = committed.get(position);
        if (c === undefined || Number.isNaN(c)) {
          throw new Error("no commit timestamp: the server needs track_commit_timestamp = on");
        }
        lags.push(at - c);
      }
      return lags;
    };
    const woken = await lag(true);
    const polled = await lag(false);
    for (const [id, p] of [
      ["12c", 50],
      ["12d", 99],
    ] as const) {
      results.push(
        measured({
          id,
          name: id === "12c" ? names.lag50 : names.lag99,
          unit: "ms",
          toolledger: percentile(woken, p),
          baseline: percentile(polled, p),
          baselineName: "the same catch-up loop polling (50 → 1000 ms backoff)",
          note: `${LAG_BATCHES} batches of ${LAG_BATCH}, one every ${LAG_EVERY_MS} ms; commit time from pg_xact_commit_timestamp`,
          details: { n: woken.length },
        }),
      );
    }
    return results;
  } finally {
    tmp.remove();
    await cluster?.remove();
  }
}
