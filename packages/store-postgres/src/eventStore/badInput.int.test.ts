import { EventStoreError } from "@toolledger/core";
import { sampleBatch } from "@toolledger/core/testing";
import { afterAll, afterEach, expect, it } from "vitest";
import {
  describeWithPostgres,
  dropSchemas,
  uniqueSchema,
  withSql,
} from "../../testing/testServer.js";
import { connect } from "../database/connection.js";
import { quoteIdent, SCHEMA_VERSION } from "../database/schema.js";
import { PostgresEventStore } from "./postgresEventStore.js";

async function failure(promise: Promise<unknown>): Promise<EventStoreError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EventStoreError);
  return error as EventStoreError;
}

describeWithPostgres("bad input and a damaged store", (url) => {
  const schemas: string[] = [];
  const stores: PostgresEventStore[] = [];
  const fresh = () => {
    const schema = uniqueSchema("bad");
    schemas.push(schema);
    return schema;
  };
  const open = async (schema: string, options = {}) => {
    const store = await PostgresEventStore.open(url, { schema, ...options });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });
  afterAll(() => dropSchemas(url, schemas));

  it("a schema holding other tables is refused (NOT_A_DATABASE) and left untouched", async () => {
    const schema = fresh();
    await withSql(url, async (query) => {
      await query(`CREATE SCHEMA ${quoteIdent(schema)}`);
      await query(`CREATE TABLE ${quoteIdent(schema)}.orders (id int)`);
    });
    const error = await failure(PostgresEventStore.open(url, { schema }));
    expect(error.code).toBe("NOT_A_DATABASE");
    expect(error.message).toContain(`schema "${schema}" already holds 1 table(s)`);
    const tables = await withSql(url, (query) =>
      query<{ n: number }>("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1", [
        schema,
      ]),
    );
    expect(tables[0]!.n).toBe(1);
  });

  it("a newer schema version is SCHEMA_TOO_NEW; a missing store opened for reading is STORE_NOT_FOUND and nothing is created", async () => {
    const schema = fresh();
    await (await open(schema)).close();
    await withSql(url, (query) =>
      query(`UPDATE ${quoteIdent(schema)}.store_info SET schema_version = $1`, [
        SCHEMA_VERSION + 1,
      ]),
    );
    const newer = await failure(PostgresEventStore.open(url, { schema }));
    expect(newer.code).toBe("SCHEMA_TOO_NEW");
    expect(newer.message).toContain("upgrade toolledger");

    const missing = fresh();
    const notFound = await failure(
      PostgresEventStore.open(url, { schema: missing, create: false }),
    );
    expect(notFound.code).toBe("STORE_NOT_FOUND");
    const [row] = await withSql(url, (query) =>
      query<{ n: number }>("SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1", [
        missing,
      ]),
    );
    expect(row!.n).toBe(0);
  });

  it("a server that refuses writes (a read-only role, as a standby would) is STORE_READ_ONLY on append; reads still work", async () => {
    const schema = fresh();
    const writer = await open(schema);
    await writer.append("s", sampleBatch("a", 2));
    const role = `ro_${schema}`;
    const password = "read-only-password-1234";
    await withSql(url, async (query) => {
      await query(`CREATE ROLE ${quoteIdent(role)} LOGIN PASSWORD '${password}'`);
      await query(`ALTER ROLE ${quoteIdent(role)} SET default_transaction_read_only = on`);
      await query(`GRANT USAGE ON SCHEMA ${quoteIdent(schema)} TO ${quoteIdent(role)}`);
      await query(`GRANT ALL ON ALL TABLES IN SCHEMA ${quoteIdent(schema)} TO ${quoteIdent(role)}`);
      await query(
        `GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ${quoteIdent(schema)} TO ${quoteIdent(role)}`,
      );
    });
    try {
      const asRole = new URL(url);
      asRole.username = role;
      asRole.password = password;
      const reader = await PostgresEventStore.open(asRole.href, { schema });
      stores.push(reader);
      expect((await reader.readStream("s")).map((e) => e.eventId)).toEqual(["a-0", "a-1"]);
      const error = await failure(reader.append("s", sampleBatch("b", 1)));
      expect(error.code).toBe("STORE_READ_ONLY");
      expect(error.message).toContain("(25006)");
      expect(error.message).not.toContain(password);
      expect(await writer.streamVersion("s")).toBe(2);
    } finally {
      for (const s of stores.splice(0)) await s.close();
      await withSql(url, async (query) => {
        await query(`DROP OWNED BY ${quoteIdent(role)}`);
        await query(`DROP ROLE ${quoteIdent(role)}`);
      });
    }
  });

  it("several processes' first open of one schema migrates it once", async () => {
    const schema = fresh();
    const opened = await Promise.all(
      Array.from({ length: 4 }, () => PostgresEventStore.open(url, { schema })),
    );
    stores.push(...opened);
    expect(await opened[0]!.append("s", sampleBatch("a", 1))).toMatchObject({ ok: true });
    expect((await opened[3]!.readAll()).map((e) => e.eventId)).toEqual(["a-0"]);
  });

  it("the log is append-only: UPDATE, DELETE and TRUNCATE are refused by the database", async () => {
    const schema = fresh();
    const store = await open(schema);
    await store.append("s", sampleBatch("a", 2));
    for (const statement of [
      `UPDATE ${quoteIdent(schema)}.events SET type = 'Cleared'`,
      `DELETE FROM ${quoteIdent(schema)}.events`,
      `TRUNCATE ${quoteIdent(schema)}.events`,
    ]) {
      await expect(withSql(url, (query) => query(statement))).rejects.toThrow(
        /toolledger events are append-only/,
      );
    }
    expect(await store.readAll()).toHaveLength(2);
  });

  it("a damaged row is STORE_CORRUPT naming both positions; a newer event version is SCHEMA_TOO_NEW", async () => {
    const schema = fresh();
    const store = await open(schema);
    await store.append("s", sampleBatch("a", 3));
    const s = quoteIdent(schema);
    await withSql(url, async (query) => {
      await query(`ALTER TABLE ${s}.events DISABLE TRIGGER events_refuse_change`);
      await query(
        `UPDATE ${s}.events SET data = '{"type":"Nope","v":1}' WHERE global_position = 2`,
      );
      await query(
        `UPDATE ${s}.events SET data = '{"type":"EnableToolsRequested","v":9,"callId":"c","names":[]}' WHERE global_position = 3`,
      );
    });
    const damaged = await failure(store.readStream("s", { fromPosition: 2, maxCount: 1 }));
    expect(damaged.code).toBe("STORE_CORRUPT");
    expect(damaged.message).toContain('global position 2 (stream "s", position 2)');
    const newer = await failure(store.readStream("s", { fromPosition: 3 }));
    expect(newer.code).toBe("SCHEMA_TOO_NEW");
  });

  it("an append that waits past lockTimeoutMs for the head lock is STORE_BUSY and writes nothing", async () => {
    const schema = fresh();
    const store = await open(schema, { lockTimeoutMs: 200 });
    const holder = connect({
      url,
      max: 1,
      lockTimeoutMs: 10_000,
      synchronousCommit: true,
      connectTimeoutMs: 10_000,
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked: () => void = () => {};
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const held = holder.transaction(async (query) => {
      await query(`SELECT position FROM ${quoteIdent(schema)}.head FOR UPDATE`);
      locked();
      await released;
    });
    try {
      await isLocked;
      const busy = await failure(store.append("s", sampleBatch("a", 1)));
      expect(busy.code).toBe("STORE_BUSY");
      expect(busy.message).toContain("lock timeout");
      expect(busy.message).toContain("55P03");
    } finally {
      release();
      await held;
      await holder.end();
    }
    expect(await store.readAll()).toEqual([]);
    expect(await store.append("s", sampleBatch("a", 1))).toMatchObject({ ok: true });
  });

  it("ids that a UTF-8 text column would change (lone surrogates, NUL) are INVALID_EVENT", async () => {
    const store = await open(fresh());
    expect(
      await store.append("s", [{ eventId: "a\u0000b", event: { type: "Cleared", v: 1 } }]),
    ).toMatchObject({ ok: false, error: { code: "INVALID_EVENT", path: "eventId" } });
    expect(await store.append("s\ud800", sampleBatch("a", 1))).toMatchObject({
      ok: false,
      error: { code: "INVALID_EVENT", path: "streamId" },
    });
    // Strings inside events may hold anything JSON can (the data column keeps the exact text).
    const odd = {
      type: "EnableToolsRequested" as const,
      v: 1 as const,
      callId: "x\u0000\ud800",
      names: [],
    };
    expect(await store.append("s", [{ eventId: "odd", event: odd }])).toMatchObject({ ok: true });
    expect((await store.readStream("s"))[0]!.event).toEqual(odd);
  });
});
