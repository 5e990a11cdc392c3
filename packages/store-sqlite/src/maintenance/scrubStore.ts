import { closeSync, existsSync, openSync, readSync } from "node:fs";
import { decodeEvent, EventStoreError } from "@toolledger/core";
import type Database from "better-sqlite3";
import { stampStoreFile } from "../database/checkStoreFile.js";
import { openReadOnlyDatabase } from "../database/readOnlyDatabase.js";
import { toStoreError } from "../database/storeError.js";
import {
  integrityCheck,
  maintainEvents,
  openForMaintenance,
  reclaimSpace,
} from "./openForMaintenance.js";

/** What finds and removes the value; the adapters' Redactor fits (store-sqlite cannot import it). */
export interface ScrubRedactor {
  /** Whether a text holds the value in any form the redactor covers. */
  finds(text: string): boolean;
  /** The text with every occurrence replaced. */
  redact(text: string): string;
  /** A JSON value with every string (and key) redacted. */
  redactValue<T>(value: T): T;
}

export interface ScrubOptions {
  redactor: ScrubRedactor;
  /**
   * The value as SQLite stores it (raw, JSON-escaped): after the scrub, the file and its WAL
   * are read byte by byte and none of these may remain.
   */
  forbidden: readonly string[];
  /** Kept in the maintenance record, next to the counts (never the value itself). */
  record: Record<string, unknown>;
  /** Count what would change; write nothing. */
  dryRun?: boolean;
  /** How long to wait for other connections to let go. Default 2000 ms. */
  busyTimeoutMs?: number;
  now?: () => Date;
}

export interface ScrubReport {
  file: string;
  dryRun: boolean;
  /** Events whose data, metadata, stream id or event id held the value. */
  eventsChanged: number;
  /** Streams those events belong to (ids after the scrub). */
  streams: string[];
  /** Cached snapshots that held it (dropped: they are rebuilt from the events). */
  snapshotsDropped: number;
  /** The id of the maintenance record written, or null (dry run, nothing found). */
  recordId: number | null;
  /** `PRAGMA integrity_check` after the scrub: `["ok"]`. */
  integrity: string[];
  /** Bytes of the database file and its WAL that were searched afterwards. */
  bytesVerified: number;
}

interface Rewrite {
  globalPosition: number;
  streamId: string;
  eventId: string;
  data: string;
  metadata: string;
}

/**
 * Removes a value that reached the log anyway (an older release, a secret no config named)
 * from every stored event, then from the file itself. In one transaction: the append-only
 * UPDATE trigger is lifted, every event holding the value is rewritten (still a valid
 * event, else nothing changes), snapshots holding it are dropped, a maintenance record
 * (without the value) is added and the trigger restored exactly as it was. Then the WAL is
 * checkpointed and truncated and the file vacuumed, so no copy survives in the WAL or in
 * free pages; `integrity_check` must say ok and the bytes of the file and its WAL must no
 * longer hold the value. Needs the file to itself (no serve running on it): STORE_BUSY.
 */
export function scrubStore(file: string, options: ScrubOptions): ScrubReport {
  const now = options.now ?? (() => new Date());
  const dryRun = options.dryRun ?? false;
  let db: Database.Database | undefined;
  let verified = false;
  try {
    // Exclusive, and kept until close: a serve still running on the file could hold the
    // value and write it back.
    db = openForMaintenance(file, {
      readOnlyJob: dryRun,
      what: "scrub",
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
    });
    const { rewrites, snapshots } = find(db, file, options.redactor);
    const streams = [...new Set(rewrites.map((w) => w.streamId))];
    let recordId: number | null = null;
    if (!dryRun) {
      if (rewrites.length > 0 || snapshots.length > 0) {
        recordId = apply(db, rewrites, snapshots, {
          at: now().toISOString(),
          detail: {
            ...options.record,
            eventsChanged: rewrites.length,
            streams,
            snapshotsDropped: snapshots.length,
          },
        });
      }
      reclaimSpace(db);
    }
    const after = integrityCheck(db);
    if (after[0] !== "ok") {
      throw new EventStoreError(
        "STORE_CORRUPT",
        `${file}: integrity_check failed after the scrub: ${after.slice(0, 3).join("; ")}`,
      );
    }
    const bytesVerified = dryRun ? 0 : verifyBytes(file, options.forbidden);
    verified = !dryRun;
    return {
      file,
      dryRun,
      eventsChanged: rewrites.length,
      streams,
      snapshotsDropped: snapshots.length,
      recordId,
      integrity: after,
      bytesVerified,
    };
  } catch (error) {
    throw toStoreError(error, file, dryRun ? "looking for the value" : "scrubbing the value");
  } finally {
    db?.close();
    // integrity_check said ok: the next writer need not read every page again.
    if (verified) stampStoreFile(file);
  }
}

/** The maintenance records of an event store file, oldest first (none when it was never scrubbed). */
export function readMaintenanceLog(
  file: string,
): { id: number; at: string; action: string; detail: Record<string, unknown> }[] {
  let db: Database.Database | undefined;
  try {
    db = openReadOnlyDatabase(file, 5000);
    const exists = db
      .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'maintenance'")
      .get();
    if (!exists) return [];
    return db
      .prepare<[], { id: number; at: string; action: string; detail: string }>(
        "SELECT id, at, action, detail FROM maintenance ORDER BY id",
      )
      .all()
      .map((row) => ({ ...row, detail: JSON.parse(row.detail) as Record<string, unknown> }));
  } catch (error) {
    throw toStoreError(error, file, "reading the maintenance log");
  } finally {
    db?.close();
  }
}

/** Every event and snapshot that holds the value, with what each event becomes. */
function find(
  db: Database.Database,
  file: string,
  r: ScrubRedactor,
): { rewrites: Rewrite[]; snapshots: [string, number][] } {
  const rewrites: Rewrite[] = [];
  const rows = db
    .prepare<
      [],
      {
        global_position: number;
        stream_id: string;
        stream_position: number;
        event_id: string;
        data: string;
        metadata: string;
      }
    >(
      "SELECT global_position, stream_id, stream_position, event_id, data, metadata FROM events ORDER BY global_position",
    )
    .iterate();
  for (const row of rows) {
    const hit =
      r.finds(row.data) || r.finds(row.metadata) || r.finds(row.stream_id) || r.finds(row.event_id);
    if (!hit) continue;
    const data = JSON.stringify(r.redactValue(JSON.parse(row.data) as unknown));
    const decoded = decodeEvent(JSON.parse(data));
    if (!decoded.ok) {
      throw new EventStoreError(
        "STORE_CORRUPT",
        `${file}: the event at global position ${row.global_position} (stream ${JSON.stringify(row.stream_id)}, position ${row.stream_position}) would no longer be a valid event with the value replaced (${decoded.error.message}); nothing was changed`,
      );
    }
    rewrites.push({
      globalPosition: row.global_position,
      streamId: r.redact(row.stream_id),
      eventId: r.redact(row.event_id),
      data,
      metadata: JSON.stringify(r.redactValue(JSON.parse(row.metadata) as unknown)),
    });
  }
  const snapshots = db
    .prepare<[], { stream_id: string; reducer_version: number; state: string }>(
      "SELECT stream_id, reducer_version, state FROM snapshots",
    )
    .all()
    .filter((s) => r.finds(s.state) || r.finds(s.stream_id))
    .map((s): [string, number] => [s.stream_id, s.reducer_version]);
  return { rewrites, snapshots };
}

/** The rewrite, in one transaction with the trigger lifted and restored; returns the record id. */
function apply(
  db: Database.Database,
  rewrites: Rewrite[],
  snapshots: [string, number][],
  record: { at: string; detail: Record<string, unknown> },
): number {
  return maintainEvents(db, "events_refuse_update", { ...record, action: "scrub" }, () => {
    const update = db.prepare(
      "UPDATE events SET stream_id = ?, event_id = ?, data = ?, metadata = ? WHERE global_position = ?",
    );
    for (const w of rewrites)
      update.run(w.streamId, w.eventId, w.data, w.metadata, w.globalPosition);
    const drop = db.prepare("DELETE FROM snapshots WHERE stream_id = ? AND reducer_version = ?");
    for (const [stream, version] of snapshots) drop.run(stream, version);
  });
}

/** Reads the file and its WAL (when present) and fails if any forbidden byte string is in them. */
function verifyBytes(file: string, forbidden: readonly string[]): number {
  const needles = forbidden.filter((f) => f.length > 0).map((f) => Buffer.from(f, "utf8"));
  let total = 0;
  for (const path of [file, `${file}-wal`]) {
    if (!existsSync(path)) continue;
    total += scanFile(path, needles);
  }
  return total;
}

function scanFile(path: string, needles: Buffer[]): number {
  const overlap = Math.max(0, ...needles.map((n) => n.length)) - 1;
  const chunk = Buffer.alloc(1 << 20);
  const fd = openSync(path, "r");
  let carry = Buffer.alloc(0);
  let offset = 0;
  try {
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, offset);
      if (n === 0) return offset;
      const window = Buffer.concat([carry, chunk.subarray(0, n)]);
      for (const needle of needles) {
        const at = window.indexOf(needle);
        if (at !== -1) {
          throw new EventStoreError(
            "IO_ERROR",
            `${path}: the value is still in the file at byte ${offset - carry.length + at} after the scrub (outside the tables toolledger knows); copy what you need and delete the file`,
          );
        }
      }
      carry = window.subarray(Math.max(0, window.length - overlap));
      offset += n;
    }
  } finally {
    closeSync(fd);
  }
}
