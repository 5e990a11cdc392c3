import type { TaskRunner, TaskStatus } from "../calls/taskEvents.js";
import type { CallOutcome } from "../events/events.js";
import type { StoredEvent } from "../store/eventStore.js";

/** C6: one status of a call's task, and how long the task stayed in it. */
export interface TaskLifecycleStep {
  status: TaskStatus;
  message: string | null;
  at: string | null;
  position: number;
  /** Until the next status; null for the last one. */
  durationMs: number | null;
}

/** C6: the task a call became (task-augmented, or made for a tool that requires one). */
export interface CallTaskAudit {
  taskId: string;
  runner: TaskRunner;
  /** False: the gateway made it for a plain call; the client never saw it. */
  requested: boolean;
  upstreamTaskId: string | null;
  /** Its latest status. */
  status: TaskStatus;
  /** Every status from its creation (`working`) on. */
  lifecycle: TaskLifecycleStep[];
}

/** C4: one tool call as the audit reports it. */
export interface CallAuditRecord {
  sessionId: string;
  callId: string;
  /** The name as the client called it. */
  name: string;
  publicName: string | null;
  owner: string | null;
  rawName: string | null;
  /** C5: `name version` of the conversation's client, when it recorded one. */
  client: string | null;
  /** Null while the call has no finish event (in flight, or the host stopped). */
  outcome: CallOutcome | null;
  reason: string | null;
  error: string | null;
  durationMs: number | null;
  started: { position: number; at: string | null; recordedAt: string };
  finished: { position: number; at: string | null; recordedAt: string } | null;
  /** C6: the call's task, when it became one. */
  task: CallTaskAudit | null;
  /**
   * D9/R13: the tool was `deferred` and not enabled, or `unknown` to the registry, when the
   * call started. Null here: deciding it folds the registry streams the conversation observes,
   * which a reader of the whole log fills in (the CLI's `audit --calls`).
   */
  registry: "deferred" | "unknown" | null;
}

export interface CallAuditFilter {
  sessionId?: string;
  /** Only calls of this exact public name (or, when it did not resolve, name as called). */
  toolName?: string;
  outcome?: CallOutcome;
  /** Calls started at or after / before these times (the store's recorded time). */
  from?: Date;
  to?: Date;
}

/** C4: every recorded call with its outcome, in the order the calls started. */
export function auditCalls(
  events: Iterable<StoredEvent>,
  filter: CallAuditFilter = {},
): CallAuditRecord[] {
  const records: CallAuditRecord[] = [];
  const open = new Map<string, CallAuditRecord>();
  /** C6: every call by its stream and id, and every task by its stream and id. */
  const byCall = new Map<string, CallAuditRecord>();
  const byTask = new Map<string, CallTaskAudit>();
  const clients = new Map<string, string>();
  const from = filter.from?.getTime() ?? null;
  const to = filter.to?.getTime() ?? null;
  for (const stored of events) {
    if (filter.sessionId !== undefined && stored.streamId !== filter.sessionId) continue;
    const e = stored.event;
    const point = {
      position: stored.streamPosition,
      at: e.at ?? null,
      recordedAt: stored.recordedAt,
    };
    if ((e.type === "ConversationStarted" || e.type === "ConversationResumed") && e.client) {
      clients.set(stored.streamId, `${e.client.name} ${e.client.version}`);
    } else if (e.type === "ToolCallStarted") {
      const record: CallAuditRecord = {
        sessionId: stored.streamId,
        callId: e.callId,
        name: e.name,
        publicName: e.publicName ?? null,
        owner: e.owner ?? null,
        rawName: e.rawName ?? null,
        client: clients.get(stored.streamId) ?? null,
        outcome: null,
        reason: null,
        error: null,
        durationMs: null,
        started: point,
        finished: null,
        task: null,
        registry: null,
      };
      open.set(`${stored.streamId}\n${e.callId}`, record);
      byCall.set(`${stored.streamId}\n${e.callId}`, record);
      records.push(record);
    } else if (e.type === "TaskCreated") {
      const record = byCall.get(`${stored.streamId}\n${e.callId}`);
      if (!record) continue;
      record.task = {
        taskId: e.taskId,
        runner: e.runner,
        requested: e.requested,
        upstreamTaskId: e.upstreamTaskId,
        status: "working",
        lifecycle: [
          {
            status: "working",
            message: null,
            at: point.at,
            position: point.position,
            durationMs: null,
          },
        ],
      };
      byTask.set(`${stored.streamId}\n${e.taskId}`, record.task);
    } else if (e.type === "TaskStatusChanged") {
      const task = byTask.get(`${stored.streamId}\n${e.taskId}`);
      if (!task) continue;
      const last = task.lifecycle.at(-1)!;
      const from = last.at === null ? Number.NaN : Date.parse(last.at);
      const to = point.at === null ? Number.NaN : Date.parse(point.at);
      if (Number.isFinite(from) && Number.isFinite(to)) last.durationMs = Math.max(0, to - from);
      task.status = e.status;
      task.lifecycle.push({
        status: e.status,
        message: e.message,
        at: point.at,
        position: point.position,
        durationMs: null,
      });
    } else if (e.type === "ToolCallFinished") {
      const key = `${stored.streamId}\n${e.callId}`;
      const record = open.get(key);
      if (!record) continue;
      open.delete(key);
      record.outcome = e.outcome;
      record.reason = e.reason ?? null;
      record.error = e.error ?? null;
      record.durationMs = e.durationMs;
      record.finished = point;
    }
  }
  return records.filter((r) => {
    if (filter.toolName !== undefined && (r.publicName ?? r.name) !== filter.toolName) return false;
    if (filter.outcome !== undefined && r.outcome !== filter.outcome) return false;
    const t = Date.parse(r.started.recordedAt);
    if (from !== null && t < from) return false;
    if (to !== null && t >= to) return false;
    return true;
  });
}

export const CALL_AUDIT_CSV_COLUMNS = [
  "session",
  "call_id",
  "client",
  "name",
  "public_name",
  "owner",
  "outcome",
  "reason",
  "duration_ms",
  "started_at",
  "finished_at",
  "error",
  "registry",
] as const;

/** RFC 4180 CSV of a call audit, one row per call. */
export function formatCallAuditCsv(records: readonly CallAuditRecord[]): string {
  const cell = (v: string | number | null) => {
    const s = v === null ? "" : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  const lines = [CALL_AUDIT_CSV_COLUMNS.join(",")];
  for (const r of records) {
    lines.push(
      [
        r.sessionId,
        r.callId,
        r.client,
        r.name,
        r.publicName,
        r.owner,
        r.outcome ?? "unfinished",
        r.reason,
        r.durationMs,
        r.started.at ?? r.started.recordedAt,
        r.finished ? (r.finished.at ?? r.finished.recordedAt) : null,
        r.error,
        r.registry,
      ]
        .map(cell)
        .join(","),
    );
  }
  return `${lines.join("\r\n")}\r\n`;
}
