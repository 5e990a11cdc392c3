import { COALESCE_AFTER, type PinRecord, type RecordStatus, recordStatus } from "@toolledger/core";
import { formatTable } from "../output/formatTable.js";
import { shortTime } from "../output/output.js";
import { whatAwaitingMeans } from "../pins/awaitingApproval.js";
import { loadLedger, serverPins } from "../pins/pinsLedger.js";
import { booleanOption, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import { openStore } from "../session/openStore.js";
import { pinsSpec } from "./pinsSpec.js";

export interface PinRow {
  server: string;
  kind: PinRecord["kind"];
  name: string;
  status: RecordStatus;
  approvedDigest: string | null;
  approvedBy: string | null;
  approvedAt: string | null;
  awaitingDigest: string | null;
  awaitingSince: string | null;
  changes: string[];
  findings: { check: string; field: string; detail: string }[];
  renamedFrom: string | null;
}

const ORDER: Record<RecordStatus, number> = { changed: 0, pending: 1, rejected: 2, approved: 3 };

/** `toolledger pins [<server>]`: every pinned definition and where it stands (P1–P6). */
export async function pinsCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(pinsSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  const store = await openStore(location, "read");
  try {
    const { state } = await loadLedger(store);
    const server = parsed.positionals[0];
    const servers =
      server === undefined
        ? Object.entries(state.pinning).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        : [[serverPins(state, server).key, serverPins(state, server).pins] as const];
    const awaitingOnly = booleanOption(parsed, "awaiting");
    const rows: PinRow[] = [];
    const coalescing: string[] = [];
    for (const [key, pins] of servers) {
      if (pins.unsettled >= COALESCE_AFTER) coalescing.push(key);
      for (const record of Object.values(pins.records)) {
        const row = toRow(key, record);
        if (!awaitingOnly || row.status !== "approved") rows.push(row);
      }
    }
    rows.sort(
      (a, b) =>
        (a.server < b.server ? -1 : a.server > b.server ? 1 : 0) ||
        ORDER[a.status] - ORDER[b.status] ||
        (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0) ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
    if (booleanOption(parsed, "json")) {
      o.json({ servers: servers.map(([key]) => key), rows, coalescing });
      return EXIT.ok;
    }
    if (rows.length === 0) {
      o.note(
        servers.length === 0
          ? `nothing is pinned in ${location.path} yet: \`toolledger serve\` pins each server's definitions when it first lists them`
          : "nothing awaits a decision",
      );
      return EXIT.ok;
    }
    const style = o.out;
    const colour = (s: RecordStatus) =>
      s === "approved" ? style.green(s) : s === "rejected" ? style.red(s) : style.yellow(s);
    o.data(
      formatTable(
        rows.map((r) => [
          r.server,
          r.kind,
          r.name === "" ? "(instructions)" : r.name,
          colour(r.status),
          shortTime(
            r.status === "approved" ? (r.approvedAt ?? undefined) : (r.awaitingSince ?? undefined),
          ),
          r.status === "approved" ? (r.approvedBy ?? "") : "",
          notes(r),
        ]),
        {
          header: ["SERVER", "KIND", "NAME", "STATUS", "SINCE", "BY", "WHY"],
          styleHeader: style.bold,
        },
      ),
    );
    const awaiting = rows.filter((r) => r.status === "changed" || r.status === "pending");
    if (awaiting.length > 0) {
      const first = awaiting[0]!;
      o.note(
        `${awaiting.length} definition(s) await approval (${whatAwaitingMeans(awaiting)}); review with \`toolledger diff ${first.kind === "tool" ? `${first.server}__${first.name}` : `${first.server} ${first.name || "instructions"}`}\`, then \`toolledger approve ${first.server}\` or \`toolledger reject ${first.server}\``,
      );
    }
    for (const key of coalescing)
      o.note(
        `${key} changed its definitions on ${COALESCE_AFTER} listings in a row without a decision: later changes are not recorded (they stay quarantined); decide on what is recorded, or serve it with --pinning ${key}=warn`,
      );
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

function toRow(server: string, record: PinRecord): PinRow {
  const a = record.awaiting;
  return {
    server,
    kind: record.kind,
    name: record.name,
    status: recordStatus(record),
    approvedDigest: record.approved?.digest ?? null,
    approvedBy: record.approved?.by ?? null,
    approvedAt: record.approved?.at ?? null,
    awaitingDigest: a?.digest ?? null,
    awaitingSince: a?.at ?? null,
    changes: a ? [...a.changes] : [],
    findings: a
      ? a.findings.map((f) => ({ check: f.check, field: f.field, detail: f.detail }))
      : [],
    renamedFrom: a?.renamedFrom ?? null,
  };
}

function notes(r: PinRow): string {
  if (r.status === "approved") return "";
  const parts: string[] = [];
  if (r.status === "changed")
    parts.push(`changed: ${r.changes.slice(0, 3).join(", ")}${r.changes.length > 3 ? ", …" : ""}`);
  if (r.status === "pending")
    parts.push(
      r.renamedFrom
        ? `renamed from ${r.renamedFrom}`
        : r.findings.length > 0 && r.approvedDigest === null
          ? "flagged at first sight"
          : "new after the baseline",
    );
  if (r.findings.length > 0)
    parts.push(`checks: ${[...new Set(r.findings.map((f) => f.check))].join(", ")}`);
  return parts.join("; ");
}
