import { initialState, type State } from "@toolledger/core";
import { createOutput } from "../output/output.js";
import { formatStateSummary, summarizeState } from "../output/summarizeState.js";
import { usageError } from "../program/cliError.js";
import {
  booleanOption,
  integerOption,
  parseCommandArgs,
  renderHelp,
  stringOption,
} from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { formatStep, stepWidth } from "../replay/formatStep.js";
import { replaySteps } from "../replay/replaySteps.js";
import { loadLog } from "../session/loadLog.js";
import { replaySpec } from "./replaySpec.js";

const PROGRESS_MIN = 2000;
const PROGRESS_EVERY = 500;

export async function replayCommand(args: readonly string[], deps: Deps): Promise<number> {
  const parsed = parseCommandArgs(replaySpec, args);
  const o = createOutput(deps);
  if (booleanOption(parsed, "help")) {
    o.data(renderHelp(replaySpec, o.out.bold));
    return EXIT.ok;
  }
  const to = integerOption(parsed, "to", "replay", 0);
  const jsonl = booleanOption(parsed, "jsonl");
  const json = booleanOption(parsed, "json");
  if (json && jsonl) throw usageError("replay: give --json or --jsonl, not both", "replay");
  const log = await loadLog(parsed.positionals[0]!, stringOption(parsed, "db"), deps);
  const last = log.entries.at(-1)?.position ?? 0;
  if (to !== undefined && to > last) {
    throw usageError(
      `replay: --to ${to} is past the end of ${log.label} (last position ${last})`,
      "replay",
    );
  }
  const progress = deps.stderr.isTTY && log.entries.length >= PROGRESS_MIN;
  const width = stepWidth(log.entries);
  let state: State = initialState();
  let n = 0;
  let anomalies = 0;
  let failedEnables = 0;
  let searches = 0;
  let unreproduced = 0;
  // --json is one document like every other command's; it is streamed, so a long log costs no memory.
  if (json && to === undefined)
    deps.stdout.write(`{"source":${JSON.stringify(log.label)},"steps":[`);
  for (const { step, state: next } of replaySteps(log.entries)) {
    if (to !== undefined && step.position > to) break;
    state = next;
    n++;
    if (progress && n % PROGRESS_EVERY === 0)
      deps.stderr.write(`\rreplaying ${n}/${log.entries.length}`);
    if (to !== undefined) continue;
    for (const c of step.changes) {
      if (c.kind === "anomaly") anomalies++;
      else if (c.kind === "enable_failed") failedEnables++;
      else if (c.kind === "searched") {
        searches++;
        if (!c.reproduced) unreproduced++;
      }
    }
    if (json) deps.stdout.write(`${n > 1 ? "," : ""}${JSON.stringify(step)}`);
    else if (jsonl) o.json(step);
    else o.data(formatStep(step, width, o));
  }
  if (progress) deps.stderr.write(`\r${" ".repeat(40)}\r`);
  const summary = summarizeState(state, { includeHidden: booleanOption(parsed, "include-hidden") });
  if (to !== undefined) {
    if (json || jsonl) o.json({ position: to, ...summary });
    else {
      o.data(`${o.out.bold(`state after position ${to}`)} of ${log.label}\n`);
      o.data(formatStateSummary(summary, o.out));
      o.data(await modelContextLine(state));
    }
    return EXIT.ok;
  }
  if (json) deps.stdout.write(`],"state":${JSON.stringify(summary)}}\n`);
  else if (!jsonl) {
    const counts = [
      ...(failedEnables > 0
        ? [`${failedEnables} failed enable${failedEnables === 1 ? "" : "s"}`]
        : []),
      ...(anomalies > 0 ? [`${anomalies} anomal${anomalies === 1 ? "y" : "ies"}`] : []),
      ...(searches > 0
        ? [
            `${searches} search${searches === 1 ? "" : "es"}, ${unreproduced === 0 ? "all reproduced" : `${unreproduced} NOT reproduced`}`,
          ]
        : []),
    ];
    // Before the footer, which stays the last line.
    const context = await modelContextLine(state);
    if (context !== "") o.data(`\n${context}`);
    o.data(
      `${context === "" ? "\n" : ""}${o.out.bold(`${log.entries.length} events`)} · version ${state.version} · ${summary.extensions.length} extension(s) · ${summary.tools.length} tool(s) · enabled: ${state.enabled.length > 0 ? state.enabled.join(", ") : "none"}${counts.map((c) => ` · ${c}`).join("")}`,
    );
  }
  return EXIT.ok;
}

/** D4: the token line of the model's tool definitions in `state` (with what deferral lookup would have saved while it is off). */
async function modelContextLine(state: State): Promise<string> {
  // Loaded here: the tokenizer is large, and only the text output needs it.
  const { contextTokens, formatContextTokens } = await import("../output/contextTokens.js");
  const tokens = contextTokens(state);
  return tokens.deferralOff === 0 ? "" : `model context: ${formatContextTokens(tokens)}\n`;
}
