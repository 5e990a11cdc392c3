import { CONVERSATION_EVENT_TYPES, type EnableError } from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { initialState, type State } from "../fold/state.js";
import type { StoredEvent } from "../store/eventStore.js";

/** Where and when something happened in a session's log. */
export interface AuditPoint {
  /** 1-based position in the session's stream. */
  position: number;
  globalPosition: number;
  /** When the store recorded the event (ISO-8601). */
  recordedAt: string;
  /** The event's own `at`, when the appender supplied one. */
  at: string | null;
}

export type EnableOutcome = "enabled" | "failed" | "never_answered";

/** One `EnableToolsRequested` event and what became of it (D6–D8). */
export interface EnableAuditRecord {
  sessionId: string;
  callId: string;
  /** The names the request asked for. */
  names: string[];
  requested: AuditPoint;
  /**
   * True when the request event is not in the log but a `Compacted` event carried it as
   * pending (D7); `requested` is then that `Compacted` event.
   */
  carriedByCompaction: boolean;
  /** The response paired with it (same call id, while it was pending), or null. */
  responded: AuditPoint | null;
  outcome: EnableOutcome;
  /** The recorded error of a failed response. */
  error: EnableError | null;
  /** Names this request enabled that are still enabled, through it, at the end of the log. */
  stillEnabled: string[];
  /**
   * The first event that took its enabled names away, or dropped it while it was pending:
   * `Cleared` (D8), a `Compacted` event that did not carry them (D7), or a response to a call
   * id already answered (D6, which ends a request that reused the id). Null when nothing did.
   */
  ended: (AuditPoint & { by: EndedBy }) | null;
}

export type EndedBy = "Cleared" | "Compacted" | "duplicate_response";

/** A response that paired with no pending request: it enabled nothing (D6). */
export interface OrphanResponse {
  sessionId: string;
  callId: string;
  kind: "response_without_request" | "duplicate_response";
  ok: boolean;
  responded: AuditPoint;
}

export interface EnableAudit {
  requests: EnableAuditRecord[];
  orphanResponses: OrphanResponse[];
}

export interface EnableAuditFilter {
  sessionId?: string;
  /** Keep requests that name this tool (exact public name); orphan responses are then dropped. */
  toolName?: string;
  /**
   * Time range on the request's time (its `at` when present and valid, else `recordedAt`);
   * `from` inclusive, `to` exclusive. Orphan responses use the response's time.
   */
  from?: Date | string;
  to?: Date | string;
}

/** The reducer's conversation state of one session, and the records behind it. */
interface SessionPairing {
  state: State;
  /** Pending call id → the request records it stands for (merged requests share one). */
  pending: Map<string, EnableAuditRecord[]>;
  /** Enabled name → the records whose successful response enabled it and still hold it. */
  holders: Map<string, Set<EnableAuditRecord>>;
}

/**
 * The audit of enable requests: pure over stored events (positions, `recordedAt`, the
 * events' `at`). Pairing is the reducer's own (D6–D8): each conversation event is folded with
 * `evolve` and the records follow what it did to the pending requests and the enabled set,
 * so the audit cannot drift from replay. Events of other types are ignored. Records are in
 * request order.
 */
export function auditEnables(
  events: Iterable<StoredEvent>,
  filter: EnableAuditFilter = {},
): EnableAudit {
  const audit = enableAuditBuilder(filter);
  for (const stored of events) audit.add(stored);
  return audit.finish();
}

/** `auditEnables` over events read a page at a time (a database cursor). */
export async function auditEnablesAsync(
  events: AsyncIterable<StoredEvent>,
  filter: EnableAuditFilter = {},
): Promise<EnableAudit> {
  const audit = enableAuditBuilder(filter);
  for await (const stored of events) audit.add(stored);
  return audit.finish();
}

/** The audit, fed one stored event at a time in log order. */
function enableAuditBuilder(filter: EnableAuditFilter): {
  add(stored: StoredEvent): void;
  finish(): EnableAudit;
} {
  const range = {
    from: filter.from === undefined ? null : toMillis(filter.from, "from"),
    to: filter.to === undefined ? null : toMillis(filter.to, "to"),
  };
  const sessions = new Map<string, SessionPairing>();
  const requests: EnableAuditRecord[] = [];
  const orphanResponses: OrphanResponse[] = [];
  const add = (stored: StoredEvent): void => {
    if (filter.sessionId !== undefined && stored.streamId !== filter.sessionId) return;
    const e = stored.event;
    if (!CONVERSATION_EVENT_TYPES.has(e.type)) return;
    let s = sessions.get(stored.streamId);
    if (!s) {
      s = { state: initialState(), pending: new Map(), holders: new Map() };
      sessions.set(stored.streamId, s);
    }
    const point: AuditPoint = {
      position: stored.streamPosition,
      globalPosition: stored.globalPosition,
      recordedAt: stored.recordedAt,
      at: e.at ?? null,
    };
    const before = s.state;
    const after = evolve(before, e);
    s.state = after;
    const anomaly = after.anomalyCount > before.anomalyCount ? after.anomalies.at(-1) : undefined;
    const ended: EndedBy =
      e.type === "Compacted" || e.type === "Cleared" ? e.type : "duplicate_response";
    if (e.type === "EnableToolsRequested") {
      const record = newRecord(stored.streamId, e.callId, e.names, point, false);
      requests.push(record);
      const records = s.pending.get(e.callId);
      if (records) records.push(record);
      else s.pending.set(e.callId, [record]);
    } else if (e.type === "EnableToolsResponded") {
      const request = before.pending.find((p) => p.callId === e.callId);
      const records = s.pending.get(e.callId) ?? [];
      const answers = request !== undefined && !after.pending.some((p) => p.callId === e.callId);
      if (anomaly?.kind === "response_without_request" || anomaly?.kind === "duplicate_response") {
        orphanResponses.push({
          sessionId: stored.streamId,
          callId: e.callId,
          kind: anomaly.kind,
          ok: e.ok,
          responded: point,
        });
      } else if (answers) {
        s.pending.delete(e.callId);
        for (const record of records) {
          record.responded = point;
          record.outcome = e.ok ? "enabled" : "failed";
          record.error = e.ok ? null : (e.error ?? null);
        }
        if (e.ok) for (const name of request.names) hold(s, name, records);
      }
    }
    // Whatever the reducer dropped from the pending requests or the enabled set ends here.
    const enabled = new Set(after.enabled);
    for (const [name, holders] of s.holders) {
      if (enabled.has(name)) continue;
      for (const r of holders) r.ended ??= { by: ended, ...point };
      s.holders.delete(name);
    }
    const pendingIds = new Set(after.pending.map((p) => p.callId));
    for (const [callId, records] of s.pending) {
      if (pendingIds.has(callId)) continue;
      for (const r of records) r.ended ??= { by: ended, ...point };
      s.pending.delete(callId);
    }
    for (const p of after.pending) {
      if (s.pending.has(p.callId)) continue;
      // D7: a request carried as pending by a Compacted event whose own event is not in the log.
      const record = newRecord(stored.streamId, p.callId, p.names, point, true);
      requests.push(record);
      s.pending.set(p.callId, [record]);
    }
  };
  const finish = (): EnableAudit => {
    for (const s of sessions.values()) {
      for (const [name, holders] of s.holders) for (const r of holders) r.stillEnabled.push(name);
    }
    for (const r of requests) {
      if (r.stillEnabled.length > 1) {
        const order = new Map(r.names.map((n, i) => [n, i] as const));
        r.stillEnabled.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
      }
    }
    return {
      requests: requests.filter(
        (r) =>
          (filter.toolName === undefined || r.names.includes(filter.toolName)) &&
          inRange(r.requested, range),
      ),
      orphanResponses:
        filter.toolName === undefined
          ? orphanResponses.filter((o) => inRange(o.responded, range))
          : [],
    };
  };
  return { add, finish };
}

/** A name is held by the merged records that asked for it (all of them if none did: D7 carried names). */
function hold(s: SessionPairing, name: string, records: readonly EnableAuditRecord[]): void {
  let holders = s.holders.get(name);
  if (!holders) {
    holders = new Set();
    s.holders.set(name, holders);
  }
  const askers = records.filter((r) => r.names.includes(name));
  for (const record of askers.length > 0 ? askers : records) holders.add(record);
}

function newRecord(
  sessionId: string,
  callId: string,
  names: readonly string[],
  requested: AuditPoint,
  carriedByCompaction: boolean,
): EnableAuditRecord {
  return {
    sessionId,
    callId,
    names: [...names],
    requested,
    carriedByCompaction,
    responded: null,
    outcome: "never_answered",
    error: null,
    stillEnabled: [],
    ended: null,
  };
}

function inRange(point: AuditPoint, range: { from: number | null; to: number | null }): boolean {
  if (range.from === null && range.to === null) return true;
  const t = timeOf(point);
  if (range.from !== null && t < range.from) return false;
  if (range.to !== null && t >= range.to) return false;
  return true;
}

/** The event's own time when it is a valid date, else when the store recorded it. */
function timeOf(point: AuditPoint): number {
  const at = point.at === null ? Number.NaN : Date.parse(point.at);
  return Number.isNaN(at) ? Date.parse(point.recordedAt) : at;
}

function toMillis(value: Date | string, name: string): number {
  const t = value instanceof Date ? value.getTime() : Date.parse(value);
  if (Number.isNaN(t)) {
    throw new RangeError(
      `audit filter \`${name}\`: ${JSON.stringify(String(value))} is not a valid date; use ISO-8601 such as 2026-01-31T12:00:00Z`,
    );
  }
  return t;
}
