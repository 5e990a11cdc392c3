import { formatTable } from "../output/formatTable.js";
import { shortTime } from "../output/output.js";
import { booleanOption, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import { describeSessionOrDamage, type SessionRow } from "../session/describeSession.js";
import { openStore } from "../session/openStore.js";
import { sessionsSpec } from "./sessionsSpec.js";

export async function sessionsCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(sessionsSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  const store = await openStore(location, "read");
  try {
    const all = booleanOption(parsed, "all");
    const rows: SessionRow[] = [];
    for (const s of await store.listSessions()) {
      const row = await describeSessionOrDamage(store, s);
      if (all || (row.kind !== "registry" && row.kind !== "pins")) rows.push(row);
    }
    if (booleanOption(parsed, "json")) {
      o.json(rows);
      return EXIT.ok;
    }
    for (const r of rows) {
      if (r.damaged !== undefined)
        o.note(`${o.err.yellow("warning:")} session ${r.session} is damaged: ${r.damaged}`);
    }
    if (rows.length === 0) {
      o.note(`no sessions in ${location.path}; run \`toolledger demo\` to record one`);
      return EXIT.ok;
    }
    const imported = rows.some((r) => r.source !== null);
    o.data(
      formatTable(
        rows.map((r) => [
          r.session,
          r.client ??
            (r.kind === "registry"
              ? "(registry)"
              : r.kind === "legacy"
                ? "(0.1 session)"
                : r.kind === "pins"
                  ? "(pins ledger)"
                  : r.kind === "damaged"
                    ? o.out.red("(damaged)")
                    : "-"),
          r.host ?? "-",
          shortTime(r.startedAt),
          r.status === "open"
            ? o.out.green("open")
            : r.status === "lost"
              ? o.out.yellow(`lost (last seen ${shortTime(r.lastSeen ?? r.endedAt)})`)
              : shortTime(r.endedAt),
          r.calls === null ? "-" : String(r.calls),
          r.enabled === null ? "-" : String(r.enabled),
          String(r.events),
          // Only when something was imported: a ledger of its own sessions reads as before.
          ...(imported ? [r.source ?? "-"] : []),
        ]),
        {
          header: [
            "SESSION",
            "CLIENT",
            "HOST",
            "STARTED",
            "ENDED",
            "CALLS",
            "ENABLED",
            "EVENTS",
            ...(imported ? ["SOURCE"] : []),
          ],
          right: [5, 6, 7],
          styleHeader: o.out.bold,
        },
      ),
    );
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
