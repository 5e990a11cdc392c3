import {
  type AppendResult,
  EVENT_SCHEMA_VERSION,
  type ExpectedVersion,
  matchesExpectedVersion,
  type SerializedBatch,
} from "@toolledger/core";
import Database from "better-sqlite3";
import { INSERT_CHUNK, type Prepared } from "./prepareStatements.js";

/** What an append needs of its store: the database, its statements and its clock. */
export interface AppendTarget {
  db: Database.Database;
  statements: Prepared;
  now: () => Date;
}

/**
 * Appends one serialized batch to a stream in one `BEGIN IMMEDIATE` transaction, with the
 * in-memory store's semantics (idempotent retry, expected version, duplicate ids).
 */
export function appendBatch(
  target: AppendTarget,
  streamId: string,
  batch: SerializedBatch,
  expected: ExpectedVersion,
): AppendResult {
  const s = target.statements;
  s.begin.run();
  try {
    const actual = s.streamVersion.get(streamId) ?? 0;
    const plain =
      batch.ids.length > 0 && batch.repeatedId === null && matchesExpectedVersion(expected, actual);
    // The common case inserts at once; a stored id then shows up as a unique violation.
    let result = plain ? null : decideAppend(s, streamId, batch, expected, actual);
    if (result === null) {
      try {
        result = insertBatch(target, streamId, batch, actual);
      } catch (error) {
        if (!isEventIdConflict(error)) throw error;
        // Roll the partial batch back: it is a retry or a duplicate, decided as in memory.
        s.rollback.run();
        s.begin.run();
        const now = s.streamVersion.get(streamId) ?? 0;
        result =
          decideAppend(s, streamId, batch, expected, now) ??
          insertBatch(target, streamId, batch, now);
      }
    }
    s.commit.run();
    return result;
  } finally {
    if (target.db.inTransaction) s.rollback.run();
  }
}

function insertBatch(
  target: AppendTarget,
  streamId: string,
  batch: SerializedBatch,
  actual: number,
): AppendResult {
  const recordedAt = target.now().toISOString();
  const n = batch.ids.length;
  let first = 0;
  let last = 0;
  let i = 0;
  // Rows go in chunks of INSERT_CHUNK per statement (fewer native calls), the rest one by one.
  if (n >= INSERT_CHUNK) {
    const params = new Array<string | number>(INSERT_CHUNK * 8);
    for (; i + INSERT_CHUNK <= n; i += INSERT_CHUNK) {
      for (let k = 0; k < INSERT_CHUNK; k++) {
        const o = k * 8;
        const j = i + k;
        params[o] = streamId;
        params[o + 1] = actual + j + 1;
        params[o + 2] = batch.ids[j]!;
        params[o + 3] = batch.types[j]!;
        // Decoding accepts only this schema version (E2), so it is every stored event's `v`.
        params[o + 4] = EVENT_SCHEMA_VERSION;
        params[o + 5] = batch.data[j]!;
        params[o + 6] = batch.metadata[j]!;
        params[o + 7] = recordedAt;
      }
      last = Number(target.statements.insertChunk.run(params).lastInsertRowid);
      if (i === 0) first = last - INSERT_CHUNK + 1;
    }
  }
  const insert = target.statements.insert;
  for (; i < n; i++) {
    const info = insert.run(
      streamId,
      actual + i + 1,
      batch.ids[i]!,
      batch.types[i]!,
      EVENT_SCHEMA_VERSION,
      batch.data[i]!,
      batch.metadata[i]!,
      recordedAt,
    );
    last = Number(info.lastInsertRowid);
    if (i === 0) first = last;
  }
  return {
    ok: true,
    nextExpectedVersion: actual + n,
    firstGlobalPosition: first,
    lastGlobalPosition: last,
  };
}

/**
 * Checks in the in-memory store's order (idempotent retry, version, empty batch, repeated
 * id); null when the batch is to be inserted.
 */
function decideAppend(
  s: Prepared,
  streamId: string,
  batch: SerializedBatch,
  expected: ExpectedVersion,
  actual: number,
): AppendResult | null {
  const retried = checkRetry(s, streamId, batch);
  if (retried) return retried;
  if (!matchesExpectedVersion(expected, actual)) {
    return { ok: false, error: { code: "VERSION_CONFLICT", streamId, expected, actual } };
  }
  if (batch.ids.length === 0) {
    const head = s.head.get() ?? 0;
    return {
      ok: true,
      nextExpectedVersion: actual,
      firstGlobalPosition: head,
      lastGlobalPosition: head,
    };
  }
  if (batch.repeatedId !== null) {
    return {
      ok: false,
      error: {
        code: "DUPLICATE_EVENT",
        eventId: batch.repeatedId,
        message: `event id ${batch.repeatedId} appears twice in one batch`,
      },
    };
  }
  return null;
}

/**
 * A retried batch (every id stored in this stream with the same content, at consecutive
 * positions in batch order) returns the original result; an id reused otherwise is
 * DUPLICATE_EVENT. Null for a fresh batch.
 */
function checkRetry(s: Prepared, streamId: string, batch: SerializedBatch): AppendResult | null {
  const found: { stream_position: number; global_position: number }[] = [];
  let firstFound: string | null = null;
  for (let i = 0; i < batch.ids.length; i++) {
    const id = batch.ids[i]!;
    const prior = s.byEventId.get(id);
    if (!prior) continue;
    if (
      prior.stream_id !== streamId ||
      prior.data !== batch.data[i] ||
      prior.metadata !== batch.metadata[i]
    ) {
      return duplicate(id, `event id ${id} is already stored with different content`);
    }
    firstFound ??= id;
    found.push(prior);
  }
  if (found.length === 0) return null;
  if (found.length < batch.ids.length) {
    return duplicate(
      firstFound!,
      "the batch mixes stored and new event ids; retry the original batch exactly",
    );
  }
  for (let i = 1; i < found.length; i++) {
    if (found[i]!.stream_position !== found[i - 1]!.stream_position + 1) {
      return duplicate(
        batch.ids[i]!,
        "the batch's event ids are stored, but not as one batch in this order; retry the original batch exactly",
      );
    }
  }
  return {
    ok: true,
    nextExpectedVersion: found[found.length - 1]!.stream_position,
    firstGlobalPosition: found[0]!.global_position,
    lastGlobalPosition: found[found.length - 1]!.global_position,
  };
}

function duplicate(eventId: string, message: string): AppendResult {
  return { ok: false, error: { code: "DUPLICATE_EVENT", eventId, message } };
}

function isEventIdConflict(error: unknown): boolean {
  return (
    error instanceof Database.SqliteError &&
    error.code === "SQLITE_CONSTRAINT_UNIQUE" &&
    error.message.includes("events.event_id")
  );
}
