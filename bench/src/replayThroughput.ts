import {
  createLogLineParser,
  decodeEvent,
  evolve,
  initialState,
  listTools,
  type State,
} from "@toolledger/core";
import { type BenchResult, measured } from "./benchResult.js";
import { forEachLine } from "./forEachLine.js";
import { interleave, timeMsAsync } from "./interleave.js";
import type { WrittenLog } from "./writeJsonl.js";

/**
 * Parses, decodes and folds every line of a JSONL log (the toolledger path of benchmark 1),
 * with the log reader `toolledger replay` uses (a repeated tool list is not parsed again).
 */
export async function replayFile(path: string): Promise<State> {
  let state = initialState();
  let line = 0;
  const parseLine = createLogLineParser();
  await forEachLine(path, (text) => {
    line++;
    const result = decodeEvent(parseLine(text));
    if (!result.ok) throw new Error(`line ${line}: ${result.error.message}`);
    state = evolve(state, result.event);
  });
  return state;
}

/** `JSON.parse` of every line plus a loop that touches each event (the baseline). */
export async function touchFile(path: string): Promise<number> {
  let touched = 0;
  await forEachLine(path, (text) => {
    const event = JSON.parse(text) as { type: string; tools?: { name: string }[] };
    touched += event.type.length;
    if (event.tools) for (const tool of event.tools) touched += tool.name.length;
  });
  return touched;
}

/** Benchmark 1: replay throughput of the session log, events per second. */
export async function replayThroughput(log: WrittenLog, rounds: number): Promise<BenchResult> {
  let finalTools = 0;
  const r = await interleave(
    { rounds, warmup: 0 },
    async () => {
      let state: State | undefined;
      const ms = await timeMsAsync(async () => {
        state = await replayFile(log.path);
      });
      finalTools = listTools(state!, { includeHidden: true }).length;
      return log.events / (ms / 1000);
    },
    async () => log.events / ((await timeMsAsync(() => touchFile(log.path))) / 1000),
  );
  return measured({
    id: "1",
    name: `replay ${(log.events / 1e6).toFixed(1)}M-event JSONL (${(log.bytes / 2 ** 20).toFixed(0)} MiB)`,
    unit: "events/s",
    toolledger: r.toolledgerMedian,
    baseline: r.baselineMedian,
    baselineName: "JSON.parse + touch each event",
    target: { op: ">=", value: 0.7 },
    note: `log line parser + decodeEvent + evolve, streamed; ${finalTools} tools at the end`,
    details: { samples: r, log: { events: log.events, bytes: log.bytes, byType: log.byType } },
  });
}
