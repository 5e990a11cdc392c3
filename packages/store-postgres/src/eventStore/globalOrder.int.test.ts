import { sampleBatch } from "@toolledger/core/testing";
import { afterAll, afterEach, expect, it } from "vitest";
import { describeWithPostgres, dropSchemas, uniqueSchema } from "../../testing/testServer.js";
import { type Connection, connect } from "../database/connection.js";
import { quoteIdent } from "../database/schema.js";
import { PostgresEventStore } from "./postgresEventStore.js";

const sql = (url: string): Connection =>
  connect({
    url,
    max: 2,
    lockTimeoutMs: 30_000,
    synchronousCommit: true,
    connectTimeoutMs: 10_000,
  });

describeWithPostgres("global order readers can trust", (url) => {
  const schemas: string[] = [];
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
  });
  afterAll(() => dropSchemas(url, schemas));

  it("a later append waits for an earlier uncommitted one, so no reader ever sees its position first", async () => {
    const schema = uniqueSchema("order");
    schemas.push(schema);
    const writer = await PostgresEventStore.open(url, { schema });
    const reader = await PostgresEventStore.open(url, { schema });
    const raw = sql(url);
    const end = { close: () => raw.end() };
    open.push(writer, reader, end);

    const controller = new AbortController();
    const delivered: number[] = [];
    const ids: string[] = [];
    const following = (async () => {
      for await (const batch of reader.subscribe({ signal: controller.signal })) {
        for (const e of batch) {
          delivered.push(e.globalPosition);
          ids.push(e.eventId);
        }
        if (delivered.length >= 5) controller.abort();
      }
    })();

    // Transaction A appends 3 events (positions 1–3) and stays open, as a slow writer's would.
    let appended: () => void = () => {};
    const appendedA = new Promise<void>((resolve) => {
      appended = resolve;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const a = sampleBatch("a", 3);
    const held = raw.transaction(async (query) => {
      await query(
        `SELECT * FROM ${quoteIdent(schema)}.append_events($1, 'any', $2, $3, $4, $5, 1, NULL, NULL)`,
        [
          "slow",
          a.map((e) => e.eventId),
          a.map((e) => e.event.type),
          a.map((e) => JSON.stringify(e.event)),
          a.map(() => "{}"),
        ],
      );
      appended();
      await released;
    });
    await appendedA;

    // B, to another stream, must not commit (and take position 4 visibly) before A ends.
    const b = writer.append("fast", sampleBatch("b", 2));
    let first: string;
    try {
      first = await Promise.race([
        b.then(() => "B committed while A was open"),
        lockWaitOf(raw, schema).then(() => "B waits for A"),
      ]);
    } finally {
      release();
    }
    expect(first).toBe("B waits for A");
    await held;
    expect(await b).toEqual({
      ok: true,
      nextExpectedVersion: 2,
      firstGlobalPosition: 4,
      lastGlobalPosition: 5,
    });
    await following;
    expect(delivered).toEqual([1, 2, 3, 4, 5]);
    expect(ids).toEqual(["a-0", "a-1", "a-2", "b-0", "b-1"]);
  });
});

/** Resolves once a backend is waiting for a lock inside this schema's append function. */
async function lockWaitOf(raw: Connection, schema: string): Promise<void> {
  for (;;) {
    const [row] = await raw.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1",
      [`%${quoteIdent(schema)}.append_events%`],
    );
    if ((row?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
