import type {
  EventOriginKind,
  State,
  ToolledgerEvent,
  ToolledgerEventInput,
} from "@toolledger/core";

/**
 * One fact of a goose session, in the order it happened: the event it becomes is built when
 * it is appended, against the state folded so far (the registry's version, what a name
 * resolves to, what a compaction carries). `key` is its identity in the source: a fact whose
 * key the ledger holds is not appended again (re-imports add only what is new).
 */
export interface Fact {
  key: string;
  stream: "registry" | "conversation";
  kind: EventOriginKind;
  note?: string;
  /** The event, or null when there is nothing to record (yet). */
  build(ctx: BuildContext): ToolledgerEventInput | null;
}

export interface BuildContext {
  /** The conversation's state: its registry's events and its own, folded in order. */
  state: State;
  /** Events already in the ledger and appended in this pass, by origin key. */
  byKey: ReadonlyMap<string, ToolledgerEvent | ToolledgerEventInput>;
  /** Call ids the conversation has used (C4 pairs by call id, so each goose call gets its own). */
  callIds: ReadonlySet<string>;
}

/** The call id a fact's call was recorded under (the request's), if it was. */
export function recordedCallId(ctx: BuildContext, requestKey: string): string | null {
  const e = ctx.byKey.get(requestKey) as { callId?: unknown } | undefined;
  return typeof e?.callId === "string" ? e.callId : null;
}
