import { EventStoreError, type StoredEvent } from "@toolledger/core";
import { assertLogInvariants, sampleEvent } from "@toolledger/core/testing";
import { describe, expect, it } from "vitest";
import { findPostgresBinaries, startThrowawayCluster } from "../testing/throwawayCluster.js";
import { PostgresEventStore } from "./postgresEventStore.js";

const WRITERS = 2;
/** Batches each writer must have acknowledged before a restart, and again after it. */
const BETWEEN = 15;

interface Writer {
  stream: string;
  acked: number;
  errors: EventStoreError[];
}

const bin = findPostgresBinaries();
// This test stops its own server: it never disturbs the server the other tests share.
const describeWithBinaries = bin === null ? describe.skip : describe;

describeWithBinaries(
  `a restart of the PostgreSQL server under load${bin === null ? " (skipped: no PostgreSQL server binaries to run a server of its own)" : ""}`,
  () => {
    it("clients get STORE_UNAVAILABLE naming the server without its password, retry, and lose or duplicate nothing", async () => {
      const cluster = await startThrowawayCluster({ settings: { fsync: "off" } });
      const password = new URL(cluster.url).password;
      const schema = "restart";
      const stores: PostgresEventStore[] = [];
      let stop = false;
      try {
        const open = async () => {
          const store = await PostgresEventStore.open(cluster.url, {
            schema,
            poolSize: 2,
            connectTimeoutMs: 2000,
          });
          stores.push(store);
          return store;
        };
        const writers: Writer[] = Array.from({ length: WRITERS }, (_, i) => ({
          stream: `w${i}`,
          acked: 0,
          errors: [],
        }));
        const writerStores = await Promise.all(writers.map(() => open()));
        const loops = writers.map((w, i) => {
          const store = writerStores[i]!;
          return (async () => {
            for (let n = 0; !stop; ) {
              const events = Array.from({ length: 1 + (n % 3) }, (_, j) => ({
                eventId: `${w.stream}-b${n}-e${j}`,
                event: sampleEvent(`${w.stream}-b${n}-e${j}`),
              }));
              try {
                // Retrying the same batch is safe: if it had committed, the ids say so.
                const result = await store.append(w.stream, events, "any");
                if (!result.ok) throw new Error(JSON.stringify(result.error));
                w.acked = ++n;
              } catch (error) {
                if (!(error instanceof EventStoreError)) throw error;
                w.errors.push(error);
                await new Promise((resolve) => setTimeout(resolve, 50));
              }
            }
          })();
        });

        // A reader follows the whole log, resubscribing after its position when the server goes away.
        const reader = await open();
        const delivered: StoredEvent[] = [];
        const readerErrors: EventStoreError[] = [];
        const controller = new AbortController();
        const following = (async () => {
          while (!controller.signal.aborted) {
            const after = delivered.at(-1)?.globalPosition ?? 0;
            try {
              for await (const batch of reader.subscribe({ after, signal: controller.signal })) {
                delivered.push(...batch);
              }
            } catch (error) {
              if (!(error instanceof EventStoreError)) throw error;
              readerErrors.push(error);
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
          }
        })();

        const ackedAtLeast = async (n: number) => {
          const reached = (async () => {
            while (writers.some((w) => w.acked < n)) {
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
          })();
          // A writer that failed otherwise than STORE_UNAVAILABLE ends the wait with its error.
          await Promise.race([reached, Promise.all(loops)]);
        };
        let target = BETWEEN;
        await ackedAtLeast(target);
        for (const mode of ["fast", "immediate"] as const) {
          await cluster.restart(mode);
          target = Math.max(...writers.map((w) => w.acked)) + BETWEEN;
          await ackedAtLeast(target);
        }
        stop = true;
        await Promise.all(loops);

        const check = await open();
        const log = await check.readAll({ limit: 1_000_000 });
        assertLogInvariants(log);
        expect(log.map((e) => e.globalPosition)).toEqual(log.map((_, i) => i + 1));
        for (const w of writers) {
          const ids = log.filter((e) => e.streamId === w.stream).map((e) => e.eventId);
          // Every acknowledged batch exactly once, complete and in order; nothing else.
          const expected = Array.from({ length: w.acked }, (_, n) =>
            Array.from({ length: 1 + (n % 3) }, (_, j) => `${w.stream}-b${n}-e${j}`),
          ).flat();
          expect(ids).toEqual(expected);
          // The restart was noticed, and said so clearly.
          expect(w.errors.length, w.stream).toBeGreaterThan(0);
        }
        const errors = [...writers.flatMap((w) => w.errors), ...readerErrors];
        for (const error of errors) {
          expect(error.code, error.message).toBe("STORE_UNAVAILABLE");
          expect(error.message).toContain(`127.0.0.1:${cluster.port}`);
          expect(error.message).toContain("toolledger:***@");
          expect(error.message).not.toContain(password);
          expect(JSON.stringify(error.cause)).not.toContain(password);
          expect(String((error.cause as Error).message)).not.toContain(password);
        }

        // The reader caught up through both restarts: the whole log, once, in order.
        while (delivered.length < log.length) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        controller.abort();
        await following;
        expect(delivered.map((e) => e.eventId)).toEqual(log.map((e) => e.eventId));
      } finally {
        stop = true;
        for (const store of stores) await store.close().catch(() => {});
        await cluster.remove();
      }
    }, 120_000);
  },
);
