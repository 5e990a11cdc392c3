import { type Connection, connect } from "../database/connection.js";
import { quoteIdent } from "../database/schema.js";
import { PostgresEventStore } from "../eventStore/postgresEventStore.js";

/** One batch for `rawAppend`: what a raw writer would send, already serialized. */
export interface RawBatch {
  ids: string[];
  types: string[];
  /** Each event as JSON. */
  data: string[];
}

/**
 * The append benchmark's baseline: the store's own schema (created by opening a store), the
 * same driver and durability, and one multi-row INSERT per batch with positions the caller
 * computed: no head lock, no version or id checks, no validation, no NOTIFY.
 */
export async function rawAppend(
  url: string,
  schema: string,
  stream: string,
  batches: readonly RawBatch[],
): Promise<void> {
  await (await PostgresEventStore.open(url, { schema })).close();
  const connection = benchConnection(url);
  const s = quoteIdent(schema);
  try {
    let position = 0;
    for (const b of batches) {
      const positions = b.ids.map((_, i) => position + i + 1);
      position += b.ids.length;
      await connection.query(
        `INSERT INTO ${s}.events (global_position, stream_id, stream_position, event_id, type, schema_version, data, metadata, recorded_at)
         SELECT p, $1, p, id, t, 1, d::json, '{}'::json, now()
         FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[]) AS b(p, id, t, d)`,
        [stream, positions, b.ids, b.types, b.data],
        "toolledger_raw_append",
      );
    }
  } finally {
    await connection.end();
  }
}

/**
 * When the transaction that wrote each global position committed, in epoch milliseconds
 * (needs `track_commit_timestamp = on`, as the benchmark's throwaway cluster has).
 */
export async function commitTimes(
  url: string,
  schema: string,
  positions: readonly number[],
): Promise<Map<number, number>> {
  const connection = benchConnection(url);
  try {
    const rows = await connection.query<{ global_position: number; committed: number }>(
      `SELECT global_position, extract(epoch FROM pg_xact_commit_timestamp(xmin)) * 1000 AS committed
       FROM ${quoteIdent(schema)}.events WHERE global_position = ANY ($1::bigint[])`,
      [positions],
    );
    return new Map(rows.map((r) => [r.global_position, Number(r.committed)]));
  } finally {
    await connection.end();
  }
}

function benchConnection(url: string): Connection {
  return connect({
    url,
    max: 1,
    lockTimeoutMs: 30_000,
    synchronousCommit: true,
    connectTimeoutMs: 10_000,
  });
}
