import { initialState, type State } from "@toolledger/core";
import { usageError } from "../cliError.js";
import {
  booleanOption,
  integerOption,
  parseCommandArgs,
  renderHelp,
  stringOption,
} from "../commandSpec.js";
import type { Deps } from "../deps.js";
import { EXIT } from "../exitCodes.js";
import { formatStep, stepWidth } from "../formatStep.js";
import { loadLog } from "../loadLog.js";
import { createOutput } from "../output.js";
import { replaySteps } from "../replaySteps.js";
import { formatStateSummary, summarizeState } from "../summarizeState.js";
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
  const json = booleanOption(parsed, "json");
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
  for (const { step, state: next } of replaySteps(log.entries)) {
    if (to !== undefined && step.position > to) break;
    state = next;
    n++;
    if (progress && n % PROGRESS_EVERY === 0)
      deps.stderr.write(`\rreplaying ${n}/${log.entries.length}`);
    if (to !== undefined) continue;
    if (json) o.json(step);
    else o.data(formatStep(step, width, o));
  }
  if (progress) deps.stderr.write(`\r${" ".repeat(40)}\r`);
  const summary = summarizeState(state, { includeHidden: booleanOption(parsed, "include-hidden") });
  if (to !== undefined) {
    if (json) o.json({ position: to, ...summary });
    else {
      o.data(`${o.out.bold(`state after position ${to}`)} of ${log.label}\n`);
      o.data(formatStateSummary(summary, o.out));
    }
    return EXIT.ok;
  }
  if (!json) {
    const anomalies = state.anomalyCount;
    o.data(
      `\n${o.out.bold(`${log.entries.length} events`)} · version ${state.version} · ${summary.extensions.length} extension(s) · ${summary.tools.length} tool(s) · enabled: ${state.enabled.length > 0 ? state.enabled.join(", ") : "none"}${anomalies > 0 ? ` · ${anomalies} anomal${anomalies === 1 ? "y" : "ies"}` : ""}`,
    );
  }
  return EXIT.ok;
}
