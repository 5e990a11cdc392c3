import { subscribe } from "@toolledger/core";
import { sampleBatch } from "@toolledger/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../testing/tempDir.test-helpers.js";
import { SqliteEventStore } from "./sqliteEventStore.js";

describe("subscribe: a polling follower on another connection", () => {
  let dir: ReturnType<typeof tempDir>;
  let writer: SqliteEventStore;
  let reader: SqliteEventStore;
  beforeEach(() => {
    dir = tempDir();
    writer = SqliteEventStore.open(dir.file("live.db"), { durability: "normal" });
    reader = SqliteEventStore.open(dir.file("live.db"), { durability: "normal" });
  });
  afterEach(async () => {
    await writer.close();
    await reader.close();
    dir.remove();
  });

  it("delivers what is appended after a global position, in batches and in order, then stops on abort", async () => {
    await writer.append("s", sampleBatch("old", 2));
    const controller = new AbortController();
    const seen: number[] = [];
    const batchSizes: number[] = [];
    const follow = (async () => {
      for await (const batch of reader.subscribe({
        after: 2,
        batchSize: 3,
        minIdleMs: 5,
        maxIdleMs: 20,
        signal: controller.signal,
      })) {
        batchSizes.push(batch.length);
        for (const e of batch) seen.push(e.globalPosition);
        if (seen.length >= 7) controller.abort();
      }
    })();
    await writer.append("s", sampleBatch("a", 4));
    await new Promise((resolve) => setTimeout(resolve, 60));
    await writer.append("t", sampleBatch("b", 3));
    await follow;
    expect(seen).toEqual([3, 4, 5, 6, 7, 8, 9]);
    expect(Math.max(...batchSizes)).toBeLessThanOrEqual(3);
  });

  it("follows one session only, from a global position", async () => {
    await writer.append("s", sampleBatch("s0", 2));
    await writer.append("t", sampleBatch("t0", 2));
    await writer.append("s", sampleBatch("s1", 1));
    const controller = new AbortController();
    const seen: string[] = [];
    const follow = (async () => {
      for await (const batch of subscribe(reader, {
        streamId: "s",
        after: 1,
        minIdleMs: 5,
        signal: controller.signal,
      })) {
        for (const e of batch) seen.push(`${e.streamId}:${e.streamPosition}`);
        if (seen.length >= 4) controller.abort();
      }
    })();
    await writer.append("t", sampleBatch("t1", 1));
    await writer.append("s", sampleBatch("s2", 2));
    await follow;
    expect(seen).toEqual(["s:2", "s:3", "s:4", "s:5"]);
  });

  it("a consumer that breaks out ends the subscription; an aborted one yields nothing", async () => {
    await writer.append("s", sampleBatch("a", 5));
    let batches = 0;
    for await (const _ of reader.subscribe({ batchSize: 2 })) {
      batches++;
      break;
    }
    expect(batches).toBe(1);
    const controller = new AbortController();
    controller.abort();
    const none: unknown[] = [];
    for await (const batch of reader.subscribe({ signal: controller.signal })) none.push(batch);
    expect(none).toEqual([]);
  });
});
