import type { EventStore } from "@toolledger/core";
import { AdapterError } from "../adapterError.js";
import { type AheadContext, decidedOnStale, redecide, settleStored } from "./aheadEntries.js";
import type { StreamFold } from "./streamFold.js";
import type { BehindEvent, WriteBehindQueue } from "./writeBehindQueue.js";

/**
 * How many times an append that lost a race to another writer is decided again (each after
 * folding what the other appended: a busy outside writer can win a few races in a row).
 */
export const CONFLICT_RETRIES = 50;

/** What a stream writer commits its queued groups with. */
export interface GroupCommit {
  store: EventStore;
  streamId: string;
  fold: StreamFold;
  queue: WriteBehindQueue;
  ahead: AheadContext;
  /** L2 across streams: holds the store's append gate (see `AppendGate`), or null. */
  gate: (() => Promise<() => void>) | null;
}

/**
 * Appends the queued groups, oldest first, through `through` (by default all); throws (and
 * keeps them) while the store fails. The callers of decisions written ahead are told once
 * their group is stored.
 */
export async function commitGroups(
  w: GroupCommit,
  through?: readonly BehindEvent[],
): Promise<void> {
  // `through` may be stored already (by a command, or by the commit it waited behind).
  while (through === undefined || w.queue.holds(through)) {
    const group = w.queue.next();
    if (!group) return;
    const refusal = await appendGroup(w, group);
    if (refusal) w.queue.refused(group, refusal);
    else {
      w.queue.stored(group);
      settleStored(group);
    }
    if (group === through) return;
  }
}

/**
 * Appends one group. Events written behind record what already happened: on a conflict the
 * others' events are folded and they are appended after them as they are. Decisions written
 * ahead (L1) went nowhere yet: when the stream moved since they were made (a conflict, or
 * another writer's events folded meanwhile) or the registry did, they are decided again first
 * (L2). Returns the store's refusal of the group for good; a failure of the store is thrown.
 */
async function appendGroup(
  w: GroupCommit,
  group: readonly BehindEvent[],
): Promise<AdapterError | null> {
  for (let attempt = 0; ; attempt++) {
    const release = w.gate ? await w.gate() : null;
    let result: Awaited<ReturnType<EventStore["append"]>>;
    try {
      // Its expected version would not catch a move already folded: checked here.
      if (decidedOnStale(group, w.ahead)) {
        w.queue.rewrite(group, redecide(group, w.ahead));
        if (group.length === 0) return null;
      }
      result = await w.store.append(w.streamId, group, w.fold.version);
      // Stored by an earlier attempt whose answer was lost, and folded since by a catch-up.
      if (result.ok && result.nextExpectedVersion > w.fold.version)
        w.fold.stored(group, result.nextExpectedVersion, result.firstGlobalPosition, true);
    } finally {
      release?.();
    }
    if (result.ok) return null;
    if (result.error.code === "VERSION_CONFLICT") {
      if (attempt < CONFLICT_RETRIES) {
        // The others' events folded; the next attempt decides again what was decided ahead.
        await w.fold.catchUp(w.store, (id) => w.queue.claim(id));
        continue;
      }
      // Retried later, like a store that is away.
      throw new AdapterError(
        "APPEND_REJECTED",
        `stream ${w.streamId} kept moving (another writer appends to it)`,
      );
    }
    return new AdapterError(
      "APPEND_REJECTED",
      `the event store refused ${group.length} event(s): ${result.error.code}: ${result.error.message}`,
    );
  }
}
