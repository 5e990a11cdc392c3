import { PINS_LEDGER_STREAM } from "@toolledger/core";
import { type Explanation, explainTool } from "../explain/explainTool.js";
import { type Output, shortTime } from "../output/output.js";
import { CliError, usageError } from "../program/cliError.js";
import { booleanOption, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import { type LoadedLog, loadLog } from "../session/loadLog.js";
import { openStore } from "../session/openStore.js";
import { defaultRulesDocument } from "../view/rulesDocument.js";
import { explainSpec } from "./explainSpec.js";

export async function explainCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(explainSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const tool = parsed.positionals[0]!;
  const session = stringOption(parsed, "session");
  const config = stringOption(parsed, "config");
  if (session !== undefined && config !== undefined)
    throw usageError("explain: give --session or --config, not both", "explain");
  let log: LoadedLog;
  if (config !== undefined) {
    // Loaded on demand: only --config needs the MCP adapters.
    const { liveLog } = await import("../serve/liveLog.js");
    log = await liveLog(
      {
        config,
        deferral: stringOption(parsed, "deferral"),
        alwaysLoad: stringOption(parsed, "always-load"),
        budget: stringOption(parsed, "deferral-budget"),
      },
      deps,
      o,
      "explain",
    );
  } else if (session !== undefined) {
    log = await loadLog(session, stringOption(parsed, "db"), deps);
  } else {
    const latest = await latestSession(stringOption(parsed, "db"), deps);
    // Picking one for the user is fine; picking it silently is not.
    o.note(
      `explain: no --session given; using the latest session, ${latest.id}${latest.startedAt ? ` (started ${shortTime(latest.startedAt)})` : ""} in ${latest.db} (--session picks another)`,
    );
    log = await loadLog(latest.id, stringOption(parsed, "db"), deps);
  }
  const explanation = explainTool(log.entries, tool);
  // A name no extension listed is not found, unless calls named it (explainCallsWhileUnknown).
  if (explanation.status === "unknown" && explanation.calls.length === 0) {
    throw new CliError("notFound", `${explanation.summary} (${log.label})`, {
      hint:
        explanation.suggestions.length > 0
          ? `close names: ${explanation.suggestions.join(", ")}`
          : "list the tools with `toolledger replay <session> --to <last position>` or `toolledger tools`",
    });
  }
  if (booleanOption(parsed, "json")) o.json({ source: log.label, ...explanation });
  else o.data(formatExplanation(explanation, log.label, o));
  return EXIT.ok;
}

/** The newest conversation (or first-release session) of the database; registry streams are skipped. */
async function latestSession(
  dbFlag: string | undefined,
  deps: Deps,
): Promise<{ id: string; startedAt: string | undefined; db: string }> {
  const location = resolveDatabasePath(dbFlag, deps.env, deps.home, deps.cwd);
  const store = await openStore(location, "read");
  try {
    const sessions = await store.listSessions();
    for (let i = sessions.length - 1; i >= 0; i--) {
      const s = sessions[i]!;
      const [first] = await store.readStream(s.sessionId, { maxCount: 1 });
      if (first?.event.type === "HostStarted" || s.sessionId === PINS_LEDGER_STREAM) continue;
      return { id: s.sessionId, startedAt: first?.event.at, db: location.path };
    }
    throw new CliError("notFound", `no sessions in ${location.path}`, {
      hint: "run `toolledger demo` to record one, or pass --config",
    });
  } finally {
    await store.close();
  }
}

export function formatExplanation(e: Explanation, source: string, o: Output): string {
  const head = e.summary.startsWith(e.publicName)
    ? o.out.bold(e.publicName) + e.summary.slice(e.publicName.length)
    : e.summary;
  const lines = [
    head,
    o.out.dim(`(from ${source}; rules: ${defaultRulesDocument() ?? "docs/rules.md"})`),
  ];
  const w = Math.max(0, ...e.reasons.map((r) => r.rule.length));
  for (const r of e.reasons) {
    const at =
      r.positions.length === 0
        ? ""
        : o.out.dim(` [event${r.positions.length > 1 ? "s" : ""} ${r.positions.join(", ")}]`);
    lines.push(`  ${o.out.cyan(r.rule.padEnd(w))}  ${r.text}${at}`);
  }
  if (e.calls.length > 0) {
    lines.push(
      o.out.bold("  calls") +
        o.out.dim(e.calls.length > 10 ? ` (the last 10 of ${e.calls.length})` : ""),
    );
    for (const c of e.calls.slice(-10)) {
      const outcome =
        c.outcome === null
          ? o.out.yellow("unfinished")
          : c.outcome === "ok"
            ? o.out.green("ok")
            : c.outcome === "refused"
              ? o.out.yellow(`refused (${c.reason})`)
              : o.out.red(c.outcome);
      const took =
        c.durationMs === null
          ? ""
          : ` in ${c.durationMs < 10 ? c.durationMs.toFixed(1) : Math.round(c.durationMs)} ms`;
      const task = c.task
        ? o.out.dim(
            ` as a task (${c.task.statuses.map((s) => s.replaceAll("_", " ")).join(" → ")}${c.task.runner === "gateway" ? ", run by the gateway" : ""})`,
          )
        : "";
      lines.push(
        `    ${o.out.dim(`[${c.position}${c.finishedAt === null ? "" : `→${c.finishedAt}`}]`)} ${outcome}${took}${task}${c.error ? o.out.dim(`: ${c.error.replace(/\s+/g, " ").slice(0, 100)}`) : ""}`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}
