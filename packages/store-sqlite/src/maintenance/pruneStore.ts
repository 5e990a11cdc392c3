import { existsSync, statSync } from "node:fs";
import { EventStoreError } from "@toolledger/core";
import type Database from "better-sqlite3";
import { stampStoreFile } from "../database/checkStoreFile.js";
import { toStoreError } from "../database/storeError.js";
import {
  integrityCheck,
  maintainEvents,
  openForMaintenance,
  reclaimSpace,
} from "./openForMaintenance.js";

export interface PruneOptions {
  /** Count what would go; write nothing. */
  dryRun?: boolean;
  /** Kept in the maintenance record (what selected the streams, e.g. `--before 30d`). */
  reason?: string;
  busyTimeoutMs?: number;
  now?: () => Date;
}

export interface PruneReport {
  file: string;
  dryRun: boolean;
  /** Streams removed (each whole), with how many events each held. */
  streams: { streamId: string; events: number }[];
  eventsDeleted: number;
  /** File size before and after (equal in a dry run). */
  bytesBefore: number;
  bytesAfter: number;
  recordId: number | null;
}

/**
 * Removes whole streams (old conversations, the registry streams nobody observes any more)
 * from an event store file: never single events, so every stream left replays as before. In
 * one transaction the append-only DELETE trigger is lifted, the streams' events and cached
 * snapshots are deleted, a maintenance record names them, and the trigger is restored
 * exactly; then the WAL is truncated and the file rebuilt, so the space is given back.
 * Needs the file to itself (a running `serve` keeps it: STORE_BUSY).
 */
export function pruneStore(
  file: string,
  streamIds: readonly string[],
  options: PruneOptions = {},
): PruneReport {
  const dryRun = options.dryRun ?? false;
  const now = options.now ?? (() => new Date());
  let db: Database.Database | undefined;
  let verified = false;
  const bytesBefore = fileBytes(file);
  try {
    db = openForMaintenance(file, {
      readOnlyJob: dryRun,
      what: "prune",
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
    });
    const count = db.prepare<[string], number>("SELECT count(*) FROM events WHERE stream_id = ?");
    const streams = [...new Set(streamIds)].map((streamId) => ({
      streamId,
      events: count.pluck().get(streamId) ?? 0,
    }));
    const missing = streams.filter((s) => s.events === 0).map((s) => s.streamId);
    if (missing.length > 0) {
      throw new EventStoreError(
        "IO_ERROR",
        `${file} has no stream ${missing.map((m) => JSON.stringify(m)).join(", ")}; nothing was removed`,
      );
    }
    const eventsDeleted = streams.reduce((n, s) => n + s.events, 0);
    let recordId: number | null = null;
    if (!dryRun && streams.length > 0) {
      recordId = maintainEvents(
        db,
        "events_refuse_delete",
        {
          at: now().toISOString(),
          action: "prune",
          detail: {
            streams: streams.map((s) => s.streamId),
            eventsDeleted,
            ...(options.reason ? { reason: options.reason } : {}),
          },
        },
        () => {
          const events = db!.prepare("DELETE FROM events WHERE stream_id = ?");
          const snapshots = db!.prepare("DELETE FROM snapshots WHERE stream_id = ?");
          for (const s of streams) {
            events.run(s.streamId);
            snapshots.run(s.streamId);
          }
        },
      );
      reclaimSpace(db);
      const after = integrityCheck(db);
      if (after[0] !== "ok") {
        throw new EventStoreError(
          "STORE_CORRUPT",
          `${file}: integrity_check failed after the prune: ${after.slice(0, 3).join("; ")}`,
        );
      }
      verified = true;
    }
    db.close();
    db = undefined;
    return {
      file,
      dryRun,
      streams,
      eventsDeleted,
      bytesBefore,
      bytesAfter: fileBytes(file),
      recordId,
    };
  } catch (error) {
    throw toStoreError(error, file, dryRun ? "looking at the streams to prune" : "pruning");
  } finally {
    db?.close();
    if (verified) stampStoreFile(file);
  }
}

function fileBytes(file: string): number {
  let total = 0;
  for (const path of [file, `${file}-wal`]) if (existsSync(path)) total += statSync(path).size;
  return total;
}
