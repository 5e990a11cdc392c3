import { fileURLToPath } from "node:url";
import { exited, lines, spawnWorker } from "@toolledger/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "./_tempDir.test-helpers.js";
import { SqliteEventStore } from "./sqliteEventStore.js";

const WORKER = fileURLToPath(new URL("../dist/_storeWorker.js", import.meta.url));

const WORKERS = 4;
const VERSIONS = 40;

describe("contention: several processes append to one stream with exact versions", () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it("has exactly one winner per version; every loser gets VERSION_CONFLICT; no raw SQLite error escapes", async () => {
    const file = dir.file("race.db");
    // Not created first: the workers also race to create and migrate the file.
    const children = Array.from({ length: WORKERS }, (_, i) =>
      spawnWorker(WORKER, ["contend", file, String(i), String(VERSIONS)]),
    );
    const reports: { worker: string; outcomes: string[] }[] = [];
    const ready: Promise<void>[] = [];
    const outputs = children.map((child) => {
      let markReady: () => void = () => {};
      ready.push(
        new Promise((resolve) => {
          markReady = resolve;
        }),
      );
      return lines(child, (line) => {
        if (line === "ready") markReady();
        else reports.push(JSON.parse(line) as { worker: string; outcomes: string[] });
      });
    });
    // A worker that dies before "ready" (it could not open the file) fails the test with its stderr.
    await Promise.race([
      Promise.all(ready),
      ...children.map((child, i) =>
        exited(child).then((e) => {
          throw new Error(
            `worker ${i} exited before ready: ${JSON.stringify(e)}\n${outputs[i]!.stderr()}`,
          );
        }),
      ),
    ]);
    for (const child of children) child.stdin!.write("go\n");
    const exits = await Promise.all(children.map(exited));
    expect(exits, outputs.map((o) => o.stderr()).join("\n")).toEqual(
      children.map(() => ({ code: 0, signal: null })),
    );
    expect(reports).toHaveLength(WORKERS);

    for (let k = 0; k < VERSIONS; k++) {
      const atK = reports.map((r) => r.outcomes[k]);
      expect(
        atK.filter((o) => o === "won"),
        `version ${k}`,
      ).toHaveLength(1);
      expect(
        atK.filter((o) => o !== "won"),
        `version ${k}`,
      ).toEqual(Array(WORKERS - 1).fill("VERSION_CONFLICT"));
    }

    const store = SqliteEventStore.open(file);
    try {
      const events = await store.readStream("race");
      expect(events.map((e) => e.streamPosition)).toEqual(
        Array.from({ length: VERSIONS }, (_, k) => k + 1),
      );
      for (const [k, e] of events.entries()) {
        const winner = reports.find((r) => r.outcomes[k] === "won")!;
        expect(e.eventId).toBe(`w${winner.worker}-v${k}`);
      }
      expect(await store.checkIntegrity()).toEqual(["ok"]);
    } finally {
      await store.close();
    }
  });
});
