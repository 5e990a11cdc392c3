import { fileURLToPath } from "node:url";
import { assertLogInvariants, exited, lines, spawnWorker } from "@toolledger/core/testing";
import { afterAll, expect, it } from "vitest";
import { describeWithPostgres, dropSchemas, uniqueSchema } from "../testing/testServer.js";
import { PostgresEventStore } from "./postgresEventStore.js";

const WORKER = fileURLToPath(new URL("../dist/_storeWorker.js", import.meta.url));
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

    const ready: Promise<void>[] = [];
    const readyLine = (child: ReturnType<typeof spawnWorker>, onData: (line: string) => void) => {
      let mark: () => void = () => {};
      ready.push(
        new Promise((resolve) => {
          mark = resolve;
        }),
      );
      return lines(child, (line) => {
        if (line === "ready") mark();
        else onData(line);
      });
    };
    // Readers first (they also race the writers to create the schema), then writers.
    const received: Seen[][] = [];
    const readers = Array.from({ length: READERS }, () =>
      spawnWorker(WORKER, ["read", schema, String(total)], env),
    );
    const readerOut = readers.map((child) =>
      readyLine(child, (line) => received.push(JSON.parse(line) as Seen[])),
    );
    const reports: WriterReport[] = [];
    const writers = Array.from({ length: WRITERS }, (_, i) =>
      spawnWorker(WORKER, ["write", schema, String(i), String(VERSIONS)], env),
    );
    const writerOut = writers.map((child) =>
      readyLine(child, (line) => reports.push(JSON.parse(line) as WriterReport)),
    );
    // A process that dies before "ready" fails the test with its stderr, not a timeout.
    const all = [...readers, ...writers];
    const out = [...readerOut, ...writerOut];
    await Promise.race([
      Promise.all(ready),
      ...all.map((child, i) =>
        exited(child).then((e) => {
          throw new Error(`worker exited before ready: ${JSON.stringify(e)}\n${out[i]!.stderr()}`);
        }),
      ),
    ]);
    for (const child of writers) child.stdin!.write("go\n");
    const exits = await Promise.all([...writers, ...readers].map(exited));
    const stderr = [...writerOut, ...readerOut].map((o) => o.stderr()).join("\n");
    expect(exits, stderr).toEqual([...writers, ...readers].map(() => ({ code: 0, signal: null })));

    // Exactly one winner per expected version; every other attempt a VERSION_CONFLICT value.
    expect(reports).toHaveLength(WRITERS);
    for (let k = 0; k < VERSIONS; k++) {
      const atK = reports.map((r) => r.outcomes[k]);
      expect(
        atK.filter((o) => o === "won"),
        `version ${k}`,
      ).toHaveLength(1);
      expect(
        atK.filter((o) => o !== "won"),
        `version ${k}`,
      ).toEqual(Array(WRITERS - 1).fill("VERSION_CONFLICT"));
    }

    const store = await PostgresEventStore.open(url, { schema, create: false });
    try {
      const log = await store.readAll({ limit: 100_000 });
      expect(log).toHaveLength(total);
      assertLogInvariants(log);
      // Gap-free: a reader can tell it has seen everything up to a position.
      expect(log.map((e) => e.globalPosition)).toEqual(log.map((_, i) => i + 1));
      const race = await store.readStream("race");
      for (const [k, e] of race.entries()) {
        const winner = reports.find((r) => r.outcomes[k] === "won")!;
        expect(e.eventId).toBe(`w${winner.worker}-v${k}`);
      }
      // No reader lost, duplicated or reordered anything: each saw exactly the log.
      const expected = log.map((e) => [e.globalPosition, e.eventId, e.streamId, e.streamPosition]);
      expect(received).toHaveLength(READERS);
      for (const seen of received) expect(seen).toEqual(expected);
    } finally {
      await store.close();
    }
  }, 120_000);
});
