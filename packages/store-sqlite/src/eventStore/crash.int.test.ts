import { fileURLToPath } from "node:url";
import { expectAcknowledgedBatches, spawnWorker, watchWorker } from "@toolledger/core/testing";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../testing/tempDir.test-helpers.js";
import { SqliteEventStore } from "./sqliteEventStore.js";

const WORKER = fileURLToPath(new URL("../../dist/testing/storeWorker.js", import.meta.url));

const ROUNDS = 5;

describe("crash: a writer killed with SIGKILL at random moments", () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it("loses no acknowledged batch and leaves no partial one; the file stays sound", async () => {
    const file = dir.file("crash.db");
    const acknowledged = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const prefix = `r${round}`;
      // Both settings promise to survive a killed process (README, Durability).
      const child = spawnWorker(WORKER, [
        "crash",
        file,
        prefix,
        round % 2 === 0 ? "full" : "normal",
      ]);
      let acks = -1;
      const run = watchWorker(child, (line) => {
        if (line.startsWith("ack ")) acks = Number(line.slice(4));
      });
      await Promise.race([run.ready, run.exit]);
      expect(child.exitCode, run.stderr()).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 150));
      child.kill("SIGKILL");
      expect(await run.exit).toEqual({ code: null, signal: "SIGKILL" });
      acknowledged.set(prefix, acks);
    }

    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      raw.close();
    }
    const store = SqliteEventStore.open(file);
    try {
      const events = await store.readStream("crash");
      expect(events.map((e) => e.streamPosition)).toEqual(events.map((_, i) => i + 1));
      expect(expectAcknowledgedBatches(events, acknowledged)).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});
