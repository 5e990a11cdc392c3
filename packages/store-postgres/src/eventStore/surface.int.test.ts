import { auditEnables, formatEnableAuditCsv } from "@toolledger/core";
import { ev, sampleBatch, withIds } from "@toolledger/core/testing";
import { afterAll, afterEach, expect, it } from "vitest";
import { describeWithPostgres, dropSchemas, uniqueSchema } from "../../testing/testServer.js";
import { PostgresEventStore } from "./postgresEventStore.js";

// The surface the CLI and hosts use beyond EventStore, as the SQLite store has it:
// subscriptions and the enable audit (the listing and state loading: the SessionStore contract).

describeWithPostgres("PostgresEventStore beyond the EventStore contract", (url) => {
  const schemas: string[] = [];
  const stores: PostgresEventStore[] = [];
  const open = async (schema: string, options = {}) => {
    const store = await PostgresEventStore.open(url, { schema, ...options });
    stores.push(store);
    return store;
  };
  const pair = async (options = {}) => {
    const schema = uniqueSchema("surface");
    schemas.push(schema);
    return { writer: await open(schema, options), reader: await open(schema) };
  };
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });
  afterAll(() => dropSchemas(url, schemas));

  it("subscribe is woken by NOTIFY: with polling pushed out to 10 minutes it still delivers each append, in order", async () => {
    const { writer, reader } = await pair();
    await writer.append("s", sampleBatch("old", 2));
    const controller = new AbortController();
    const seen: number[] = [];
    let wake: () => void = () => {};
    const follow = (async () => {
      for await (const batch of reader.subscribe({
        after: 2,
        batchSize: 3,
        maxIdleMs: 600_000,
        signal: controller.signal,
      })) {
        for (const e of batch) seen.push(e.globalPosition);
        wake();
        if (seen.length >= 7) controller.abort();
      }
    })();
    const delivered = (n: number) =>
      new Promise<void>((resolve) => {
        wake = () => {
          if (seen.length >= n) resolve();
        };
        wake();
      });
    // Each append happens while the subscription is idle: only a notification can wake it.
    await writer.append("s", sampleBatch("a", 4));
    await delivered(4);
    await writer.append("t", sampleBatch("b", 3));
    await follow;
    expect(seen).toEqual([3, 4, 5, 6, 7, 8, 9]);
  });

  it("a subscription to one stream skips notifications of others and delivers its own", async () => {
    const { writer, reader } = await pair();
    await writer.append("s", sampleBatch("s0", 2));
    const controller = new AbortController();
    const seen: string[] = [];
    const follow = (async () => {
      for await (const batch of reader.subscribe({
        streamId: "s",
        after: 1,
        maxIdleMs: 600_000,
        signal: controller.signal,
      })) {
        for (const e of batch) seen.push(`${e.streamId}:${e.streamPosition}`);
        if (seen.length >= 3) controller.abort();
      }
    })();
    await writer.append("t", sampleBatch("t1", 1));
    await writer.append("s", sampleBatch("s2", 2));
    await follow;
    expect(seen).toEqual(["s:2", "s:3", "s:4"]);
  });

  it("auditEnables pages through the log and equals the core's audit of the same events", async () => {
    const { writer } = await pair();
    await writer.append(
      "s",
      withIds([
        ev.added("github"),
        ev.fetched("github", 1, ["search"]),
        ev.requested("c1", ["github__search"], "2026-11-29T10:01:00.000Z"),
        ev.responded("c1", true),
        ev.requested("c2", ["nope"]),
        ev.responded("c2", false, undefined, {
          code: "UNKNOWN_TOOL",
          message: "unknown",
          invalid: [],
        }),
        ev.cleared(),
        ev.responded("orphan", true),
      ]),
    );
    await writer.append("t", withIds([ev.requested("t1", ["github__search"])]));
    const all = await writer.readAll();
    expect(await writer.auditEnables()).toEqual(auditEnables(all));
    expect(await writer.auditEnables({ sessionId: "s" })).toEqual(
      auditEnables(all, { sessionId: "s" }),
    );
    const audit = await writer.auditEnables({ sessionId: "s" });
    expect(audit.requests.map((r) => r.outcome)).toEqual(["enabled", "failed"]);
    expect(audit.requests[0]!.ended?.by).toBe("Cleared");
    expect(audit.orphanResponses).toHaveLength(1);
    expect(formatEnableAuditCsv(audit).split("\r\n")).toHaveLength(4);
  });
});
