import type { EnableError, StoredEvent } from "@toolledger/core";

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
  /** The `Cleared` event that ended its enabled names, or dropped it while it was pending. */
  cleared: AuditPoint | null;
  /** A `Compacted` event that dropped its enabled names or its pending request. */
  compactedAway: AuditPoint | null;
}

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

/** What the reducer (evolve) holds per session for pairing, plus the records behind it. */
interface SessionPairing {
  /** Pending requests by call id: the names the reducer will enable, and the request records. */
  pending: Map<string, { names: readonly string[]; records: EnableAuditRecord[] }>;
  answered: Set<string>;
  /** Enabled name → the records whose successful response enabled it and still hold it. */
  holders: Map<string, Set<EnableAuditRecord>>;
}

/**
 * The audit of enable requests: pure over stored events (positions, `recordedAt`, the
 * events' `at`), pairing exactly as the reducer does (D6): a response pairs with the
 * pending request of the same call id; a repeated pending call id merges into it; `Cleared`
 * (D8) drops enabled names, pending requests and answered ids; `Compacted` (D7) replaces
 * them. Events of other types are ignored. Records are in request order.
 */
export function auditEnables(
  events: Iterable<StoredEvent>,
  filter: EnableAuditFilter = {},
): EnableAudit {
  const sessions = new Map<string, SessionPairing>();
  const requests: EnableAuditRecord[] = [];
  const orphanResponses: OrphanResponse[] = [];
  for (const stored of events) {
    if (filter.sessionId !== undefined && stored.streamId !== filter.sessionId) continue;
    const e = stored.event;
    if (
      e.type !== "EnableToolsRequested" &&
      e.type !== "EnableToolsResponded" &&
      e.type !== "Compacted" &&
      e.type !== "Cleared"
    ) {
      continue;
    }
    let s = sessions.get(stored.streamId);
    if (!s) {
      s = { pending: new Map(), answered: new Set(), holders: new Map() };
      sessions.set(stored.streamId, s);
    }
    const point: AuditPoint = {
      position: stored.streamPosition,
      globalPosition: stored.globalPosition,
      recordedAt: stored.recordedAt,
      at: e.at ?? null,
    };
    switch (e.type) {
      case "EnableToolsRequested": {
        const record = newRecord(stored.streamId, e.callId, e.names, point, false);
        requests.push(record);
        const pending = s.pending.get(e.callId);
        if (pending) {
          pending.names = [...pending.names, ...e.names];
          pending.records.push(record);
        } else {
          s.pending.set(e.callId, { names: e.names, records: [record] });
        }
        break;
      }
      case "EnableToolsResponded": {
        const pending = s.pending.get(e.callId);
        if (!pending) {
          orphanResponses.push({
            sessionId: stored.streamId,
            callId: e.callId,
            kind: s.answered.has(e.callId) ? "duplicate_response" : "response_without_request",
            ok: e.ok,
            responded: point,
          });
          break;
        }
        s.pending.delete(e.callId);
        s.answered.add(e.callId);
        for (const record of pending.records) {
          record.responded = point;
          record.outcome = e.ok ? "enabled" : "failed";
          record.error = e.ok ? null : (e.error ?? null);
        }
        if (!e.ok) break;
        for (const name of pending.names) {
          let holders = s.holders.get(name);
          if (!holders) {
            holders = new Set();
            s.holders.set(name, holders);
          }
          for (const record of pending.records) holders.add(record);
        }
        break;
      }
      case "Cleared": {
        for (const holders of s.holders.values()) for (const r of holders) r.cleared ??= point;
        for (const pending of s.pending.values())
          for (const r of pending.records) r.cleared ??= point;
        s.holders.clear();
        s.pending.clear();
        s.answered.clear();
        break;
      }
      case "Compacted": {
        const enabled = new Set(e.enabled);
        for (const [name, holders] of s.holders) {
          if (enabled.has(name)) continue;
          for (const r of holders) r.compactedAway ??= point;
          s.holders.delete(name);
        }
        const carried = new Map(e.pending.map((p) => [p.callId, p.names]));
        for (const [callId, pending] of s.pending) {
          const names = carried.get(callId);
          if (names === undefined) {
            for (const r of pending.records) r.compactedAway ??= point;
            s.pending.delete(callId);
          } else {
            pending.names = names;
          }
        }
        for (const [callId, names] of carried) {
          if (s.pending.has(callId)) continue;
          const record = newRecord(stored.streamId, callId, names, point, true);
          requests.push(record);
          s.pending.set(callId, { names, records: [record] });
        }
        s.answered = new Set(e.answered);
        break;
      }
    }
  }
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
    requests: requests.filter((r) => keepRecord(r, filter)),
    orphanResponses:
      filter.toolName === undefined
        ? orphanResponses.filter((o) => inRange(o.responded, filter))
        : [],
  };
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
    cleared: null,
    compactedAway: null,
  };
}

function keepRecord(r: EnableAuditRecord, filter: EnableAuditFilter): boolean {
  if (filter.toolName !== undefined && !r.names.includes(filter.toolName)) return false;
  return inRange(r.requested, filter);
}

function inRange(point: AuditPoint, filter: EnableAuditFilter): boolean {
  if (filter.from === undefined && filter.to === undefined) return true;
  const t = timeOf(point);
  if (filter.from !== undefined && t < toMillis(filter.from, "from")) return false;
  if (filter.to !== undefined && t >= toMillis(filter.to, "to")) return false;
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
