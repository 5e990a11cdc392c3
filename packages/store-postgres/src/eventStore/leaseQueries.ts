// The SQL behind leases (L3: which host holds which conversations, on the server's clock) and
// the open conversations a lost host leaves behind.

import type { Lease, LeaseReading, LeaseRenewal, OpenConversation } from "@toolledger/core";
import type { Query } from "../database/connection.js";
import { quoteIdent } from "../database/schema.js";
import { isoTime } from "./eventRow.js";

/** The store's clock: a test's own, or undefined for the server's. */
type Clock = (() => Date) | undefined;

/** Takes or renews a lease; undefined when the upsert returned no row. */
export async function upsertLease(
  query: Query,
  schema: string,
  now: Clock,
  renewal: LeaseRenewal,
): Promise<Lease | undefined> {
  const s = quoteIdent(schema);
  // The server's clock, so every host compares expiries on one clock (a test's own clock wins).
  const [row] = await query<LeaseRow>(
    `WITH t AS (SELECT coalesce($5::timestamptz, clock_timestamp()) AS now)
     INSERT INTO ${s}.leases (holder, hostname, pid, pid_space, renewed_at, expires_at)
     SELECT $1, $2, $3, $4, t.now, t.now + make_interval(secs => $6::double precision / 1000) FROM t
     ON CONFLICT (holder) DO UPDATE SET hostname = excluded.hostname, pid = excluded.pid,
       pid_space = excluded.pid_space, renewed_at = excluded.renewed_at,
       expires_at = excluded.expires_at
     RETURNING ${LEASE_COLUMNS}`,
    [
      renewal.holder,
      renewal.hostname,
      renewal.pid,
      renewal.pidSpace,
      now ? now().toISOString() : null,
      renewal.ttlMs,
    ],
  );
  return row ? leaseFromRow(row) : undefined;
}

export async function deleteLease(query: Query, schema: string, holder: string): Promise<void> {
  const s = quoteIdent(schema);
  await query(`DELETE FROM ${s}.leases WHERE holder = $1`, [holder]);
}

/** The leases of `holders` that exist, and the server's time they are compared with. */
export async function selectLeases(
  query: Query,
  schema: string,
  now: Clock,
  holders: readonly string[],
): Promise<LeaseReading> {
  const s = quoteIdent(schema);
  const rows = await query<LeaseRow & { now: string }>(
    `SELECT ${LEASE_COLUMNS}, ${isoTime("coalesce($2::timestamptz, clock_timestamp())")} AS now
     FROM (SELECT 1) AS one LEFT JOIN ${s}.leases ON holder = ANY($1::text[])`,
    [holders, now ? now().toISOString() : null],
  );
  const at = rows[0]?.now ?? (now?.() ?? new Date()).toISOString();
  return { now: at, leases: rows.filter((r) => r.holder !== null).map(leaseFromRow) };
}

/** Conversations whose last start or resume has no close after it, with their last event's time. */
export function selectOpenConversations(query: Query, schema: string): Promise<OpenConversation[]> {
  const s = quoteIdent(schema);
  return query<OpenConversation>(
    `SELECT x.stream_id AS "conversationId",
            x.data->>'registryStream' AS "registryStream",
            (SELECT ${isoTime("l.recorded_at")} FROM ${s}.events AS l WHERE l.stream_id = x.stream_id
             ORDER BY l.stream_position DESC LIMIT 1) AS "lastRecordedAt"
     FROM (
       SELECT stream_id, type, data,
              row_number() OVER (PARTITION BY stream_id ORDER BY stream_position DESC) AS rn
       FROM ${s}.events
       WHERE type IN ('ConversationStarted', 'ConversationResumed', 'ConversationClosed')
     ) AS x
     WHERE x.rn = 1 AND x.type <> 'ConversationClosed'
     ORDER BY x.stream_id`,
  );
}

interface LeaseRow {
  holder: string;
  hostname: string;
  pid: number;
  pid_space: string | null;
  renewed_at: string;
  expires_at: string;
}

const LEASE_COLUMNS = `holder, hostname, pid, pid_space, ${isoTime("renewed_at")} AS renewed_at, ${isoTime("expires_at")} AS expires_at`;

function leaseFromRow(row: LeaseRow): Lease {
  return {
    holder: row.holder,
    hostname: row.hostname,
    pid: row.pid,
    pidSpace: row.pid_space,
    renewedAt: row.renewed_at,
    expiresAt: row.expires_at,
  };
}
