import { fileURLToPath } from "node:url";
import { exited, lines, spawnWorker } from "@toolledger/core/testing";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "./_tempDir.test-helpers.js";
import { SqliteEventStore } from "./sqliteEventStore.js";

const WORKER = fileURLToPath(new URL("../dist/_storeWorker.js", import.meta.url));

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
      let markReady: () => void = () => {};
      const ready = new Promise<void>((resolve) => {
        markReady = resolve;
      });
      const out = lines(child, (line) => {
        if (line === "ready") markReady();
        else if (line.startsWith("ack ")) acks = Number(line.slice(4));
      });
      const exit = exited(child);
      await Promise.race([ready, exit]);
      expect(child.exitCode, out.stderr()).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 150));
      child.kill("SIGKILL");
      expect(await exit).toEqual({ code: null, signal: "SIGKILL" });
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
      const batches = new Map<string, { size: number; ids: string[] }>();
      for (const e of events) {
        const [prefix, b] = e.eventId.split("-");
        const key = `${prefix}-${b}`;
        const entry = batches.get(key) ?? { size: e.metadata.size as number, ids: [] };
        entry.ids.push(e.eventId);
        batches.set(key, entry);
      }
      // None partial: every stored batch has all its events, in order.
      for (const [key, { size, ids }] of batches) {
        expect(ids, key).toEqual(Array.from({ length: size }, (_, j) => `${key}-e${j}`));
      }
      let total = 0;
      for (const [prefix, acks] of acknowledged) {
        total += acks + 1;
        // Every acknowledged batch is there; at most one more (committed, not yet reported).
        for (let n = 0; n <= acks; n++)
          expect(batches.has(`${prefix}-b${n}`), `${prefix}-b${n}`).toBe(true);
        expect(batches.has(`${prefix}-b${acks + 2}`)).toBe(false);
      }
      expect(total).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});
