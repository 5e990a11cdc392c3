import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type BenchResult, measured } from "./benchResult.js";
import { interleave } from "./interleave.js";
import type { WrittenLog } from "./writeJsonl.js";

const run = promisify(execFile);
const MiB = 2 ** 20;

async function peakRss(mode: "toolledger" | "baseline", path: string): Promise<number> {
  const child = fileURLToPath(new URL("./replayChild.js", import.meta.url));
  const { stdout } = await run(process.execPath, [child, mode, path], { maxBuffer: 1 << 20 });
  return (JSON.parse(stdout) as { maxRssBytes: number }).maxRssBytes;
}

/**
 * Benchmark 7b: peak RSS of a process that replays the session log (decode + fold, streamed),
 * against the log's size: a replay that loaded the file whole would need more than the file.
 */
export async function replayRss(log: WrittenLog, rounds: number): Promise<BenchResult> {
  const r = await interleave(
    { rounds, warmup: 0 },
    async () => (await peakRss("toolledger", log.path)) / MiB,
    async () => (await peakRss("baseline", log.path)) / MiB,
  );
  const logMiB = log.bytes / MiB;
  return measured({
    id: "7b",
    name: `peak RSS replaying the ${(log.events / 1e6).toFixed(1)}M-event log`,
    unit: "MiB",
    toolledger: r.toolledgerMedian,
    baseline: logMiB,
    baselineName: "size of the log file",
    target: { op: "<=", value: 0.45 },
    note: `a child process per replay; streaming JSON.parse loop peaks at ${r.baselineMedian.toFixed(0)} MiB`,
    details: { samples: r, logBytes: log.bytes },
  });
}
