import type { AuditPoint, EnableAudit, EnableAuditRecord } from "./auditEnables.js";

/** Column names of `formatEnableAuditCsv`, in order. */
export const ENABLE_AUDIT_CSV_COLUMNS = [
  "session_id",
  "call_id",
  "names",
  "outcome",
  "error_code",
  "error_message",
  "requested_position",
  "requested_global_position",
  "requested_at",
  "requested_recorded_at",
  "carried_by_compaction",
  "responded_position",
  "responded_at",
  "responded_recorded_at",
  "still_enabled",
  "ended_by",
  "ended_position",
  "ended_at",
] as const;

/**
 * The audit's requests as CSV (RFC 4180: comma-separated, CRLF line ends, fields quoted when
 * they hold a comma, quote or line break), one row per request. Lists of names are joined
 * with a space (public names contain none). Times are the event's `at` when supplied, else
 * the store's `recordedAt`.
 */
export function formatEnableAuditCsv(audit: Pick<EnableAudit, "requests">): string {
  const lines = [ENABLE_AUDIT_CSV_COLUMNS.join(",")];
  for (const r of audit.requests) lines.push(row(r).map(csvField).join(","));
  return `${lines.join("\r\n")}\r\n`;
}

function row(r: EnableAuditRecord): (string | number | null)[] {
  return [
    r.sessionId,
    r.callId,
    r.names.join(" "),
    r.outcome,
    r.error?.code ?? null,
    r.error?.message ?? null,
    r.requested.position,
    r.requested.globalPosition,
    timeOf(r.requested),
    r.requested.recordedAt,
    r.carriedByCompaction ? "true" : "false",
    r.responded?.position ?? null,
    r.responded ? timeOf(r.responded) : null,
    r.responded?.recordedAt ?? null,
    r.stillEnabled.join(" "),
    r.ended?.by ?? null,
    r.ended?.position ?? null,
    r.ended ? timeOf(r.ended) : null,
  ];
}

function timeOf(p: AuditPoint): string {
  return p.at ?? p.recordedAt;
}

function csvField(value: string | number | null): string {
  if (value === null) return "";
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
