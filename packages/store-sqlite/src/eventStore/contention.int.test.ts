import { fileURLToPath } from "node:url";
import {
  allReady,
  expectAllExitCleanly,
  expectOneWinnerPerVersion,
  expectWinnersStored,
  spawnWorker,
  watchWorker,
} from "@toolledger/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../testing/tempDir.test-helpers.js";
import { SqliteEventStore } from "./sqliteEventStore.js";

const WORKER = fileURLToPath(new URL("../../dist/testing/storeWorker.js", import.meta.url));

const WORKERS = 4;
const VERSIONS = 40;

describe("contention: several processes append to one stream with exact versions", () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it("has exactly one winner per version; every loser gets VERSION_CONFLICT; no raw SQLite error escapes", async () => {
    const file = dir.file("race.db");
    const reports: { worker: string; outcomes: string[] }[] = [];
    // Not created first: the workers also race to create and migrate the file.
    const runs = Array.from({ length: WORKERS }, (_, i) =>
      watchWorker(spawnWorker(WORKER, ["contend", file, String(i), String(VERSIONS)]), (line) =>
        reports.push(JSON.parse(line) as { worker: string; outcomes: string[] }),
      ),
    );
    // A worker that dies before "ready" (it could not open the file) fails the test with its stderr.
    await allReady(runs);
    for (const run of runs) run.child.stdin!.write("go\n");
    await expectAllExitCleanly(runs);
    expect(reports).toHaveLength(WORKERS);
    expectOneWinnerPerVersion(reports, VERSIONS);

    const store = SqliteEventStore.open(file);
    try {
      const events = await store.readStream("race");
      expect(events.map((e) => e.streamPosition)).toEqual(
        Array.from({ length: VERSIONS }, (_, k) => k + 1),
      );
      expectWinnersStored(events, reports);
      expect(await store.checkIntegrity()).toEqual(["ok"]);
    } finally {
      await store.close();
    }
  });
});
