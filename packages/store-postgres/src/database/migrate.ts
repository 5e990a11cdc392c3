import type { Connection, Query } from "./connection.js";
import { migrations, quoteIdent, SCHEMA_VERSION } from "./schema.js";
import { type StoreLocation, storeError } from "./storeError.js";

interface StoreInfo {
  application: string;
  schema_version: number;
}

/**
 * Brings the schema to SCHEMA_VERSION in one transaction, under a transaction-scoped advisory
 * lock (two processes opening a new store migrate it once). A newer schema, or a schema that
 * holds other tables, is refused. With `create: false` a missing store is STORE_NOT_FOUND and
 * nothing is created.
 */
export async function migrate(
  connection: Connection,
  schema: string,
  where: StoreLocation,
  create: boolean,
): Promise<void> {
  const current = await readVersion(connection.query, schema, where);
  if (current === SCHEMA_VERSION) return;
  if (current === null && !create) {
    throw storeError(
      "STORE_NOT_FOUND",
      where,
      `no toolledger event store here (schema ${JSON.stringify(schema)} has no store tables)`,
    );
  }
  await connection.transaction(async (query) => {
    await query("SELECT pg_advisory_xact_lock(hashtext($1))", [`toolledger migrate ${schema}`]);
    await query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    const from = (await readVersion(query, schema, where)) ?? 0;
    if (from === 0) {
      const [{ n } = { n: 0 }] = await query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND c.relkind IN ('r', 'v', 'm', 'p', 'f')",
        [schema],
      );
      if (n > 0) {
        throw storeError(
          "NOT_A_DATABASE",
          where,
          `schema ${JSON.stringify(schema)} already holds ${n} table(s) and is not a toolledger event store`,
        );
      }
    }
    const steps = migrations(schema);
    for (let v = from; v < SCHEMA_VERSION; v++) await query(steps[v]!);
    await query(
      `INSERT INTO ${quoteIdent(schema)}.store_info (application, schema_version) VALUES ('toolledger', $1)
       ON CONFLICT (singleton) DO UPDATE SET schema_version = excluded.schema_version`,
      [SCHEMA_VERSION],
    );
  });
}

/** The schema's store version, null when it has no store, SCHEMA_TOO_NEW when newer than this build. */
async function readVersion(
  query: Query,
  schema: string,
  where: StoreLocation,
): Promise<number | null> {
  const [{ present } = { present: false }] = await query<{ present: boolean }>(
    "SELECT to_regclass($1) IS NOT NULL AS present",
    [`${quoteIdent(schema)}.store_info`],
  );
  if (!present) return null;
  const [info] = await query<StoreInfo>(
    `SELECT application, schema_version FROM ${quoteIdent(schema)}.store_info`,
  );
  if (info?.application !== "toolledger") {
    throw storeError(
      "NOT_A_DATABASE",
      where,
      `schema ${JSON.stringify(schema)} has a store_info table that is not a toolledger event store's`,
    );
  }
  if (info.schema_version > SCHEMA_VERSION) {
    throw storeError(
      "SCHEMA_TOO_NEW",
      where,
      `the event store has schema version ${info.schema_version}, newer than ${SCHEMA_VERSION} that this toolledger supports`,
    );
  }
  return info.schema_version;
}
