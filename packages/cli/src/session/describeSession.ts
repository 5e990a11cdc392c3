import {
  type EventStore,
  evolve,
  initialState,
  PINS_LEDGER_STREAM,
  readWholeStream,
  type SessionSummary,
} from "@toolledger/core";

/** One row of `toolledger sessions`: a conversation, a host's registry stream, or a first-release session. */
export interface SessionRow {
  session: string;
  /**
   * `pins`: the pins ledger (P4), one per database. `damaged`: its events cannot all be read
   * back (a damaged database file); see `damaged`.
   */
  kind: "conversation" | "registry" | "legacy" | "pins" | "damaged";
  events: number;
  /** When it happened: its first and last events' own times (`at`), else when they were stored. */
  startedAt: string;
  endedAt: string;
  /** When the events were stored here (an import's time for an imported session). */
  firstRecordedAt: string;
  lastRecordedAt: string;
  /** C5: `name version` of the client (conversations). */
  client: string | null;
  transport: string | null;
  /** The machine it ran on (conversations and registry streams). */
  host: string | null;
  /** The registry stream a conversation observes. */
  registry: string | null;
  /** open, closed, or lost (L3: its gateway stopped without closing it) (conversations). */
  status: "open" | "closed" | "lost" | null;
  /** L3: a lost conversation's gateway was last seen alive then. */
  lastSeen?: string;
  calls: number | null;
  enabled: number | null;
  /** An imported session's source (`goose sqlite <id>`), null for one recorded here. */
  source: string | null;
  /** An imported sub-agent's parent conversation. */
  parent: string | null;
  /** Why its events cannot be read (only on a `damaged` row). */
  damaged?: string;
}

/** Reads what a stream is from its own events (a conversation's are folded without its registry). */
export async function describeSession(store: EventStore, s: SessionSummary): Promise<SessionRow> {
  const [first] = await store.readStream(s.sessionId, { maxCount: 1 });
  const e = first?.event;
  const base = (lastAt: string | undefined) => ({
    session: s.sessionId,
    events: s.eventCount,
    // An imported session keeps the times it happened at, not the time of the import.
    startedAt: e?.at ?? s.firstRecordedAt,
    endedAt: lastAt ?? s.lastRecordedAt,
    firstRecordedAt: s.firstRecordedAt,
    lastRecordedAt: s.lastRecordedAt,
  });
  if (s.sessionId === PINS_LEDGER_STREAM) {
    const [last] = await store.readStream(s.sessionId, { fromPosition: s.eventCount, maxCount: 1 });
    return {
      ...base(last?.event.at),
      kind: "pins",
      client: null,
      transport: null,
      host: null,
      registry: null,
      status: null,
      calls: null,
      enabled: null,
      source: null,
      parent: null,
    };
  }
  if (e?.type === "HostStarted") {
    const [last] = await store.readStream(s.sessionId, {
      fromPosition: s.eventCount,
      maxCount: 1,
    });
    return {
      ...base(last?.event.at),
      kind: "registry",
      client: null,
      transport: null,
      host: e.hostname,
      registry: null,
      status: null,
      calls: null,
      enabled: null,
      source: null,
      parent: null,
    };
  }
  let state = initialState();
  let lastAt: string | undefined;
  let imported: { source: string | null; parent: string | null } = { source: null, parent: null };
  for (const stored of await readWholeStream(store, s.sessionId)) {
    state = evolve(state, stored.event);
    lastAt = stored.event.at ?? lastAt;
    if (stored.event.type === "SessionImported")
      imported = {
        source: `${stored.event.host} ${stored.event.format} ${stored.event.sourceSession}`,
        parent: stored.event.parentConversation,
      };
  }
  const c = state.conversation;
  if (e?.type !== "ConversationStarted" || c === null) {
    return {
      ...base(lastAt),
      kind: "legacy",
      client: null,
      transport: null,
      host: null,
      registry: null,
      status: null,
      calls: null,
      enabled: state.enabled.length,
      source: imported.source,
      parent: imported.parent,
    };
  }
  return {
    ...base(lastAt),
    kind: "conversation",
    client: c.client ? `${c.client.name} ${c.client.version}` : null,
    transport: c.transport,
    host: c.hostname,
    registry: c.registryStream,
    status: c.status === "closed" && c.closedReason === "lost" ? "lost" : c.status,
    ...(c.lastSeen ? { lastSeen: c.lastSeen } : {}),
    calls: state.calls.started,
    enabled: state.enabled.length,
    source: imported.source,
    parent: imported.parent,
  };
}

/**
 * `describeSession`, or for a stream whose events cannot be read back from a damaged file
 * (STORE_CORRUPT), a `damaged` row saying why, so that listing a damaged database shows
 * every session instead of failing on the first bad one.
 */
export async function describeSessionOrDamage(
  store: EventStore,
  s: SessionSummary,
): Promise<SessionRow> {
  try {
    return await describeSession(store, s);
  } catch (error) {
    if ((error as { code?: unknown }).code !== "STORE_CORRUPT") throw error;
    return {
      session: s.sessionId,
      kind: "damaged",
      events: s.eventCount,
      startedAt: s.firstRecordedAt,
      endedAt: s.lastRecordedAt,
      firstRecordedAt: s.firstRecordedAt,
      lastRecordedAt: s.lastRecordedAt,
      client: null,
      transport: null,
      host: null,
      registry: null,
      status: null,
      calls: null,
      enabled: null,
      source: null,
      parent: null,
      damaged: (error as Error).message,
    };
  }
}
