import { type EventStore, PINS_LEDGER_STREAM, readWholeStream } from "@toolledger/core";
import { formatTable } from "../output/formatTable.js";
import type { Output } from "../output/output.js";
import { shortTime } from "../output/output.js";

/** One pinning decision of the ledger (P2–P6): what happened to which definition, and who. */
export interface PinAuditRecord {
  /** Position in the pins ledger. */
  position: number;
  at: string | null;
  server: string;
  kind: string;
  name: string;
  /** pinned (first use), changed, pending, restored, approved, rejected. */
  decision: string;
  /** Who decided: `first use`, the server (changed, restored), or the person. */
  by: string;
  detail: string;
}

export interface PinAuditFilter {
  /** A definition's name or a tool's public name (`<server>__<tool>`). */
  name?: string;
  from?: Date;
  to?: Date;
}

/** P6 audit: every decision of the pins ledger, oldest first. */
export async function auditPins(
  store: EventStore,
  filter: PinAuditFilter = {},
): Promise<PinAuditRecord[]> {
  const out: PinAuditRecord[] = [];
  for (const stored of await readWholeStream(store, PINS_LEDGER_STREAM)) {
    const e = stored.event;
    const base = { position: stored.streamPosition, at: e.at ?? stored.recordedAt };
    switch (e.type) {
      case "DefinitionsPinned":
        for (const i of e.items)
          out.push({
            ...base,
            server: e.extension,
            kind: i.kind,
            name: i.name,
            decision: "pinned",
            by: "first use",
            detail: "",
          });
        break;
      case "DefinitionsChanged":
        for (const i of e.items)
          out.push({
            ...base,
            server: e.extension,
            kind: i.kind,
            name: i.name,
            decision: i.status,
            by: e.extension,
            detail: [
              i.changes.length > 0 ? `changed: ${i.changes.join(", ")}` : "",
              i.renamedFrom ? `renamed from ${i.renamedFrom}` : "",
              i.findings.length > 0
                ? `flagged: ${[...new Set(i.findings.map((f) => f.check))].join(", ")}`
                : "",
            ]
              .filter((x) => x !== "")
              .join("; "),
          });
        break;
      case "DefinitionsRestored":
        for (const i of e.items)
          out.push({
            ...base,
            server: e.extension,
            kind: i.kind,
            name: i.name,
            decision: "restored",
            by: e.extension,
            detail: "listed as approved again",
          });
        break;
      case "DefinitionsApproved":
      case "DefinitionsRejected":
        for (const i of e.items)
          out.push({
            ...base,
            server: e.extension,
            kind: i.kind,
            name: i.name,
            decision: e.type === "DefinitionsApproved" ? "approved" : "rejected",
            by: e.by,
            detail: `${i.digest.slice(0, 19)}…${e.type === "DefinitionsRejected" && e.reason ? `; ${e.reason}` : ""}`,
          });
        break;
      default:
        break;
    }
  }
  return out.filter((r) => {
    if (
      filter.name !== undefined &&
      r.name !== filter.name &&
      `${r.server}__${r.name}` !== filter.name
    )
      return false;
    const t = r.at === null ? Number.NaN : Date.parse(r.at);
    if (filter.from && !(t >= filter.from.getTime())) return false;
    if (filter.to && !(t < filter.to.getTime())) return false;
    return true;
  });
}

/** The human table of `audit --pins`. */
export function formatPinAudit(records: readonly PinAuditRecord[], o: Output): string {
  if (records.length === 0) return "no pinning decisions\n";
  return formatTable(
    records.map((r) => [
      String(r.position),
      shortTime(r.at ?? undefined),
      r.server,
      r.kind === "tool" ? r.name : `${r.name || "instructions"} (${r.kind})`,
      r.decision === "approved"
        ? o.out.green(r.decision)
        : r.decision === "pinned"
          ? r.decision
          : o.out.yellow(r.decision),
      r.by,
      r.detail,
    ]),
    {
      header: ["#", "AT", "SERVER", "DEFINITION", "DECISION", "BY", "DETAIL"],
      right: [0],
      styleHeader: o.out.bold,
    },
  );
}
