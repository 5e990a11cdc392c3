import type { Fact } from "./gooseFact.js";
import type { GooseSession } from "./gooseSession.js";
import { iso } from "./scanGooseSession.js";

const v = 1 as const;

/** One row of goose's usage ledger as `UsageRecorded`. */
export function usageFact(row: NonNullable<GooseSession["usageLedger"]>[number]): Fact {
  const carried = row.costSource === "carried_forward";
  return {
    key: `usage:${row.id}`,
    stream: "conversation",
    kind: carried ? "inferred" : "exact",
    ...(carried
      ? { note: "goose's carried_forward row: spend recorded before its usage ledger existed" }
      : {}),
    build: () => ({
      type: "UsageRecorded",
      v,
      at: iso(row.createdTimestamp),
      model: row.model,
      inputTokens: row.inputTokens,
      outputTokens: row.outputTokens,
      totalTokens: row.totalTokens,
      cacheReadTokens: row.cacheReadTokens,
      cacheWriteTokens: row.cacheWriteTokens,
      cost: row.cost,
      costSource: row.costSource,
      compaction: row.isCompaction,
    }),
  };
}

/**
 * goose before its usage ledger: the session's latest turn and running totals as one
 * `UsageRecorded`, or null when it kept no counts (or has a ledger: `usageFact` then).
 */
export function sessionTokensFact(session: GooseSession, firstAt: string): Fact | null {
  if (session.usageLedger !== null) return null;
  const t = session.tokens;
  if (t.accumulatedTotal === null && t.total === null) return null;
  return {
    key: `usage-session:${t.accumulatedTotal ?? "-"}:${t.accumulatedInput ?? "-"}:${t.accumulatedOutput ?? "-"}:${t.total ?? "-"}`,
    stream: "conversation",
    kind: "inferred",
    note: "goose before its usage ledger kept only the latest turn's counts and running totals; this is the latest turn as of this import",
    build: () => ({
      type: "UsageRecorded",
      v,
      at: session.updatedAt ?? firstAt,
      model: null,
      inputTokens: t.input,
      outputTokens: t.output,
      totalTokens: t.total,
      cost: null,
      costSource: null,
      compaction: false,
    }),
  };
}
