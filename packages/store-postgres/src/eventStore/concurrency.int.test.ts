import { fileURLToPath } from "node:url";
import {
  allReady,
  assertLogInvariants,
  expectAllExitCleanly,
  expectOneWinnerPerVersion,
  expectWinnersStored,
  spawnWorker,
  watchWorker,
} from "@toolledger/core/testing";
import { afterAll, expect, it } from "vitest";
import { describeWithPostgres, dropSchemas, uniqueSchema } from "../../testing/testServer.js";
import { PostgresEventStore } from "./postgresEventStore.js";

const WORKER = fileURLToPath(new URL("../../dist/testing/storeWorker.js", import.meta.url));
const WRITERS = 4;
const READERS = 2;
const VERSIONS = 60;

interface WriterReport {
  worker: string;
  outcomes: string[];
  own: number;
}

type Seen = [globalPosition: number, eventId: string, streamId: string, streamPosition: number];

describeWithPostgres("4 writer processes and 2 subscribing readers on one log", (url) => {
  const schemas: string[] = [];
  afterAll(() => dropSchemas(url, schemas));

  it("every reader gets every committed event once, in global order; one winner per expected version", async () => {
    const schema = uniqueSchema("concurrency");
    schemas.push(schema);
    const env = { TOOLLEDGER_WORKER_URL: url };
    // Each writer appends VERSIONS own batches of 1–4 events, and the race has VERSIONS winners.
    const own = Array.from({ length: VERSIONS }, (_, k) => 1 + (k % 4)).reduce((a, b) => a + b);
    const total = VERSIONS + WRITERS * own;

    // Readers first (they also race the writers to create the schema), then writers.
    const received: Seen[][] = [];
    const readers = Array.from({ length: READERS }, () =>
      watchWorker(spawnWorker(WORKER, ["read", schema, String(total)], env), (line) =>
        received.push(JSON.parse(line) as Seen[]),
      ),
    );
    const reports: WriterReport[] = [];
    const writers = Array.from({ length: WRITERS }, (_, i) =>
      watchWorker(
        spawnWorker(WORKER, ["write", schema, String(i), String(VERSIONS)], env),
        (line) => reports.push(JSON.parse(line) as WriterReport),
      ),
    );
    // A process that dies before "ready" fails the test with its stderr, not a timeout.
    await allReady([...readers, ...writers]);
    for (const run of writers) run.child.stdin!.write("go\n");
    await expectAllExitCleanly([...writers, ...readers]);

    // Exactly one winner per expected version; every other attempt a VERSION_CONFLICT value.
    expect(reports).toHaveLength(WRITERS);
    expectOneWinnerPerVersion(reports, VERSIONS);

    const store = await PostgresEventStore.open(url, { schema, create: false });
    try {
      const log = await store.readAll({ limit: 100_000 });
      expect(log).toHaveLength(total);
      assertLogInvariants(log);
      // Gap-free: a reader can tell it has seen everything up to a position.
      expect(log.map((e) => e.globalPosition)).toEqual(log.map((_, i) => i + 1));
      expectWinnersStored(await store.readStream("race"), reports);
      // No reader lost, duplicated or reordered anything: each saw exactly the log.
      const expected = log.map((e) => [e.globalPosition, e.eventId, e.streamId, e.streamPosition]);
      expect(received).toHaveLength(READERS);
      for (const seen of received) expect(seen).toEqual(expected);
    } finally {
      await store.close();
    }
  }, 120_000);
});
