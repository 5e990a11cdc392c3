import { readWholeStream } from "@toolledger/core";
import { pruneStore } from "@toolledger/store-sqlite";
import { formatTable } from "../output/formatTable.js";
import { CliError, usageError } from "../program/cliError.js";
import { booleanOption, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { requireSqliteFile, resolveDatabasePath } from "../session/databasePath.js";
import { describeSession, type SessionRow } from "../session/describeSession.js";
import { openStore } from "../session/openStore.js";
import { parseTime } from "./audit.js";
import { pruneSpec } from "./pruneSpec.js";

/** `toolledger prune`: remove whole old conversations and the registry streams they leave unobserved. */
export async function pruneCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(pruneSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const ids = parsed.positionals;
  const beforeFlag = stringOption(parsed, "before");
  if (ids.length > 0 === (beforeFlag !== undefined)) {
    throw usageError("prune: give conversation ids or --before <time>, one of the two", "prune");
  }
  const before =
    beforeFlag === undefined ? null : parseTime(beforeFlag, "before", deps.now()).getTime();
  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  requireSqliteFile(
    location,
    "prune",
    "on PostgreSQL, delete whole streams with SQL as the database owner (the events table refuses DELETE by trigger), then VACUUM",
  );
  const store = await openStore(location, "read");
  let selected: SessionRow[];
  let reason: string;
  try {
    const rows: SessionRow[] = [];
    for (const s of await store.listSessions()) rows.push(await describeSession(store, s));
    const byId = new Map(rows.map((r) => [r.session, r]));
    if (ids.length > 0) {
      for (const id of ids) {
        const row = byId.get(id);
        if (!row)
          throw new CliError("notFound", `no session ${JSON.stringify(id)} in ${location.path}`, {
            hint: "list them with `toolledger sessions --all`",
          });
        if (row.kind === "pins") {
          throw new CliError(
            "usage",
            `${id} is the pins ledger: every approval of this database is in it; prune never removes it`,
          );
        }
        if (row.kind === "registry") {
          throw new CliError(
            "usage",
            `${id} is a registry stream; prune removes the conversations, and a registry stream once none observes it`,
          );
        }
      }
      selected = ids.map((id) => byId.get(id)!);
      reason = `by id: ${ids.join(", ")}`;
    } else {
      const includeOpen = booleanOption(parsed, "include-open");
      selected = rows.filter(
        (r) =>
          r.kind !== "registry" &&
          r.kind !== "pins" &&
          Date.parse(r.endedAt) < before! &&
          (r.status !== "open" || includeOpen),
      );
      reason = `ended before ${new Date(before!).toISOString()}${includeOpen ? ", open ones included" : ""}`;
    }
    // C1: a registry stream goes only when no conversation left observes it (and, with
    // --before, when it ended before the time too).
    const leaving = new Set(selected.map((r) => r.session));
    const observed = new Set<string>();
    for (const r of rows) {
      if (r.kind !== "conversation" || leaving.has(r.session)) continue;
      for (const { event } of await readWholeStream(store, r.session)) {
        if (event.type === "ConversationStarted" || event.type === "ConversationResumed")
          observed.add(event.registryStream);
      }
    }
    const referenced = new Set<string>();
    for (const r of selected) if (r.registry) referenced.add(r.registry);
    for (const r of rows) {
      if (r.kind !== "registry" || observed.has(r.session)) continue;
      const old = before !== null ? Date.parse(r.endedAt) < before : referenced.has(r.session);
      if (old) selected.push(r);
    }
  } finally {
    await store.close();
  }
  const dryRun = booleanOption(parsed, "dry-run");
  const report = pruneStore(
    location.path,
    selected.map((r) => r.session),
    { dryRun, reason, now: deps.now },
  );
  if (booleanOption(parsed, "json")) {
    o.json({
      ...report,
      removed: selected.map((r) => ({ session: r.session, kind: r.kind, endedAt: r.endedAt })),
    });
    return EXIT.ok;
  }
  if (selected.length === 0) {
    o.note(`nothing to prune in ${location.path} (${reason})`);
    return EXIT.ok;
  }
  o.data(
    formatTable(
      selected.map((r) => [r.session, r.kind, r.client ?? "-", r.endedAt, String(r.events)]),
      {
        header: ["SESSION", "KIND", "CLIENT", "ENDED", "EVENTS"],
        right: [4],
        styleHeader: o.out.bold,
      },
    ),
  );
  const mib = (b: number) => `${(b / 2 ** 20).toFixed(2)} MiB`;
  o.note(
    dryRun
      ? `would remove ${selected.length} stream(s), ${report.eventsDeleted} event(s); nothing was changed (dry run)`
      : `removed ${selected.length} stream(s), ${report.eventsDeleted} event(s); ${location.path}: ${mib(report.bytesBefore)} → ${mib(report.bytesAfter)} (maintenance record #${report.recordId})`,
  );
  return EXIT.ok;
}
