import {
  auditCalls,
  type CallAuditRecord,
  type CallOutcome,
  CallOutcomeSchema,
  type EnableAuditFilter,
  type EnableAuditRecord,
  type EventStore,
  formatCallAuditCsv,
  formatEnableAuditCsv,
  readWholeStream,
  type StoredEvent,
} from "@toolledger/core";
import { formatTable } from "../output/formatTable.js";
import type { Output } from "../output/output.js";
import { stillEnabledLabel } from "../output/stillEnabledLabel.js";
import { auditPins, formatPinAudit } from "../pins/auditPins.js";
import { usageError } from "../program/cliError.js";
import { booleanOption, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import { openStore } from "../session/openStore.js";
import { sessionNotFound } from "../session/readSession.js";
import { auditSpec } from "./auditSpec.js";
import { markAuditedCalls } from "./markAuditedCalls.js";

export async function auditCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(auditSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const json = booleanOption(parsed, "json");
  const csv = booleanOption(parsed, "csv");
  if (json && csv) throw usageError("audit: give --json or --csv, not both", "audit");
  const filter: EnableAuditFilter = {};
  const session = stringOption(parsed, "session");
  const tool = stringOption(parsed, "tool");
  const since = stringOption(parsed, "since");
  const until = stringOption(parsed, "until");
  if (session !== undefined) filter.sessionId = session;
  if (tool !== undefined) filter.toolName = tool;
  if (since !== undefined) filter.from = parseTime(since, "since", deps.now());
  if (until !== undefined) filter.to = parseTime(until, "until", deps.now());

  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  const store = await openStore(location, "read");
  try {
    if (session !== undefined && (await store.streamVersion(session)) === 0)
      throw await sessionNotFound(store, session);
    if (booleanOption(parsed, "pins")) {
      const records = await auditPins(store, {
        ...(tool !== undefined ? { name: tool } : {}),
        ...(since !== undefined ? { from: parseTime(since, "since", deps.now()) } : {}),
        ...(until !== undefined ? { to: parseTime(until, "until", deps.now()) } : {}),
      });
      if (json) o.json({ pins: records });
      else o.data(formatPinAudit(records, o));
      return EXIT.ok;
    }
    if (booleanOption(parsed, "calls")) {
      const outcome = stringOption(parsed, "outcome");
      if (outcome !== undefined && !CallOutcomeSchema.safeParse(outcome).success) {
        throw usageError(
          `audit: --outcome ${JSON.stringify(outcome)} is not an outcome; use one of ${CallOutcomeSchema.options.join(", ")}`,
          "audit",
        );
      }
      const events =
        session !== undefined ? await readWholeStream(store, session) : await readEverything(store);
      const calls = auditCalls(events, {
        ...(tool !== undefined ? { toolName: tool } : {}),
        ...(since !== undefined ? { from: parseTime(since, "since", deps.now()) } : {}),
        ...(until !== undefined ? { to: parseTime(until, "until", deps.now()) } : {}),
        ...(outcome !== undefined ? { outcome: outcome as CallOutcome } : {}),
      });
      await markAuditedCalls(store, calls);
      if (json) o.json({ calls });
      else if (csv) deps.stdout.write(formatCallAuditCsv(calls));
      else o.data(formatCalls(calls, session === undefined, o));
      return EXIT.ok;
    }
    const audit = await store.auditEnables(filter);
    if (json) o.json(audit);
    else if (csv) deps.stdout.write(formatEnableAuditCsv(audit));
    else
      o.data(formatAudit(audit.requests, audit.orphanResponses.length, session === undefined, o));
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

/** `--since`/`--until`: ISO-8601, or an age such as `30m`, `12h`, `7d` counted back from now. */
export function parseTime(value: string, flag: string, now: Date): Date {
  const age = /^(\d+)([smhd])$/.exec(value);
  if (age) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[
      age[2] as "s" | "m" | "h" | "d"
    ];
    return new Date(now.getTime() - Number(age[1]) * unit);
  }
  const t = Date.parse(value);
  if (Number.isNaN(t)) {
    throw usageError(
      `audit: --${flag} ${JSON.stringify(value)} is not a time; use ISO-8601 (2026-11-29T12:00:00Z) or an age (30m, 12h, 7d)`,
      "audit",
    );
  }
  return new Date(t);
}

function formatAudit(
  requests: readonly EnableAuditRecord[],
  orphans: number,
  allSessions: boolean,
  o: Output,
): string {
  if (requests.length === 0 && orphans === 0) return "no enable requests match\n";
  const outcome = (r: EnableAuditRecord) =>
    r.outcome === "enabled"
      ? o.out.green("enabled")
      : r.outcome === "failed"
        ? o.out.red("failed")
        : o.out.yellow("never answered");
  const rows = requests.map((r) => [
    ...(allSessions ? [r.sessionId] : []),
    r.callId,
    r.names.join(", ") || "(none)",
    outcome(r),
    `${r.requested.position}${r.responded ? `→${r.responded.position}` : ""}`,
    stillEnabledLabel(r),
    r.error ? r.error.code : "",
  ]);
  const header = [
    ...(allSessions ? ["SESSION"] : []),
    "CALL",
    "NAMES",
    "OUTCOME",
    "EVENTS",
    "STILL ENABLED",
    "ERROR",
  ];
  let text = formatTable(rows, { header, styleHeader: o.out.bold });
  if (orphans > 0)
    text += `\n${o.out.yellow("!")} ${orphans} response(s) paired with no request and enabled nothing (see --json)\n`;
  return text;
}

async function readEverything(store: EventStore): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for (;;) {
    const page = await store.readAll({ after: out.at(-1)?.globalPosition ?? 0, limit: 5000 });
    out.push(...page);
    if (page.length < 5000) return out;
  }
}

function formatCalls(calls: readonly CallAuditRecord[], allSessions: boolean, o: Output): string {
  if (calls.length === 0) return "no tool calls match\n";
  const outcome = (r: CallAuditRecord) =>
    r.outcome === null
      ? o.out.yellow("unfinished")
      : r.outcome === "ok"
        ? o.out.green("ok")
        : r.outcome === "refused"
          ? o.out.yellow(`refused (${r.reason ?? "?"})`)
          : o.out.red(r.outcome);
  // C6: a call that became a task says so, with its last status and how its task went.
  const task = (r: CallAuditRecord) =>
    r.task === null
      ? ""
      : ` ${o.out.dim(
          `[task ${r.task.lifecycle
            .map((s) => s.status.replaceAll("_", " "))
            .filter((s, i, all) => s !== all[i - 1])
            .join(
              " → ",
            )}${r.task.runner === "gateway" ? ", run by the gateway" : ""}${r.task.requested ? "" : ", for a plain call"}]`,
        )}`;
  const rows = calls.map((r) => [
    ...(allSessions ? [r.sessionId] : []),
    r.client ?? "-",
    r.publicName ?? r.name,
    `${outcome(r)}${task(r)}`,
    r.durationMs === null
      ? "-"
      : `${r.durationMs < 10 ? r.durationMs.toFixed(1) : Math.round(r.durationMs)} ms`,
    `${r.started.position}${r.finished ? `→${r.finished.position}` : ""}`,
    r.error ? oneLine(r.error) : "",
    r.registry === null ? "" : registryLabel(r.registry, o),
  ]);
  return formatTable(rows, {
    header: [
      ...(allSessions ? ["SESSION"] : []),
      "CLIENT",
      "TOOL",
      "OUTCOME",
      "TIME",
      "EVENTS",
      "ERROR",
      "REGISTRY",
    ],
    styleHeader: o.out.bold,
  });
}

/** D9/R13: where the tool stood in the registry when the call started. */
function registryLabel(mark: "deferred" | "unknown", o: Output): string {
  return mark === "deferred"
    ? o.out.yellow("deferred, not enabled (D9)")
    : o.out.yellow("unknown to the registry");
}

function oneLine(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > 80 ? `${t.slice(0, 79)}…` : t;
}
