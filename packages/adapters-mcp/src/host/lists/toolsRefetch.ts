import { type Command, getExtension, isStale } from "@toolledger/core";
import type { AdapterError } from "../../adapterError.js";
import type { StreamWriter } from "../../ledger/streamWriter.js";
import type { SupervisedExtension } from "../supervisedExtension.js";
import { recordToolsFetch, type ToolsFetchLimits } from "./recordToolsFetch.js";

/** What listing an extension's tools needs of its host. */
export interface ToolsRefetchContext {
  writer: StreamWriter;
  limits: ToolsFetchLimits;
  /** True once the host is closing. */
  closed(): boolean;
  /** Background work (failures reported, waited for at close). */
  track(work: Promise<unknown>): void;
  /** P2: decides a listing against the pins ledger before it is recorded. */
  beforeRecord(command: Command): Promise<void>;
}

/** Rounds of one refetch run before it gives up until the next list change (a server that changes on every list). */
const MAX_REFETCH_ROUNDS = 10;

/** The key of an extension's tools in the refetch scheduler. */
export const toolsKey = (key: string) => `tools\u0000${key}`;

/**
 * R11: a list change invalidates the extension's tools now, once between two fetches: a
 * second ToolsInvalidated before the next fetch starts would change nothing.
 */
export function invalidateTools(ctx: ToolsRefetchContext, s: SupervisedExtension): void {
  if (s.invalidated) return;
  s.invalidated = true;
  const invalidation = ctx.writer.execute(() => ({ type: "InvalidateTools", extension: s.key }));
  const settled = invalidation.then(
    () => undefined,
    () => undefined,
  );
  s.invalidation = settled;
  void settled.then(() => {
    if (s.invalidation === settled) s.invalidation = null;
  });
  ctx.track(invalidation);
}

/**
 * R11: the work of one tools refetch run (RefetchScheduler): lists the extension until its
 * recorded list is current, waiting for a burst of list changes to end before each refetch;
 * returns the last failure, if any. `force`: the first listing happens even when the
 * registry holds a current list (a new connection: a resumed log's list is from before).
 */
export async function listUntilCurrent(
  ctx: ToolsRefetchContext,
  s: SupervisedExtension,
  force: boolean,
  note: ((e: AdapterError) => string) | undefined,
  quiet: () => Promise<void>,
): Promise<AdapterError | null> {
  let failure: AdapterError | null = null;
  for (let round = 0; round < MAX_REFETCH_ROUNDS; round++) {
    const first = round === 0 && force;
    if (!first) await quiet();
    const generation = s.generation;
    const connection = s.connection;
    if (ctx.closed() || !connection || !s.current(generation)) return failure;
    await settledInvalidation(s);
    const ext = getExtension(ctx.writer.state, s.key);
    if (!ext || (!first && !isStale(ctx.writer.state, ext))) return failure;
    // A list change from now on makes this fetch stale, so it is recorded again.
    s.invalidated = false;
    failure = await recordToolsFetch(ctx.writer, connection, s.key, ctx.limits, {
      ...(note ? { note } : {}),
      current: () => s.current(generation),
      beforeRecord: (command) => ctx.beforeRecord(command),
    });
  }
  return failure;
}

/** Waits for the ToolsInvalidated queued for an extension, and any queued while it waited. */
async function settledInvalidation(s: SupervisedExtension): Promise<void> {
  for (let queued = s.invalidation; queued !== null; ) {
    await queued;
    if (s.invalidation === queued || s.invalidation === null) return;
    queued = s.invalidation;
  }
}
