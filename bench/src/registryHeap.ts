import { decodeEvent, evolve, initialState, listTools, type State } from "@toolledger/core";
import { type BenchResult, measured, notRun } from "./benchResult.js";
import { collectGarbage, interleave } from "./interleave.js";
import { registryEvents } from "./sessionLog.js";

const MiB = 2 ** 20;

/** Bytes retained by what `build` returns, after full GCs before and after. */
function retainedBytes(build: () => unknown): { retained: number; peak: number; keep: unknown } {
  collectGarbage();
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const keep = build();
  const peak = process.memoryUsage().heapUsed - before;
  collectGarbage();
  collectGarbage();
  return { retained: process.memoryUsage().heapUsed - before, peak, keep };
}

/**
 * Benchmark 7a: heap retained by a 20,000-tool registry built from JSON lines (decoded and
 * folded, the events then dropped), against the same tools JSON.parse'd into a Map.
 */
export async function registryHeap(rounds: number): Promise<BenchResult> {
  const name = "heap of a 20,000-tool registry (after GC)";
  const baselineName = "JSON.parse'd tools in a Map";
  if (!(globalThis as { gc?: unknown }).gc) {
    return notRun("7a", name, baselineName, "node was started without --expose-gc");
  }
  const events = registryEvents(400, 50);
  const lines = events.map((e) => JSON.stringify(e));
  let toolsJsonBytes = 0;
  for (const e of events)
    if (e.type === "ToolsFetched") toolsJsonBytes += Buffer.byteLength(JSON.stringify(e.tools));
  events.length = 0;

  let toolCount = 0;
  const peaks: number[] = [];
  const r = await interleave(
    { rounds, warmup: 1 },
    () => {
      const m = retainedBytes(() => {
        let state: State = initialState();
        for (const line of lines) {
          const decoded = decodeEvent(JSON.parse(line));
          if (!decoded.ok) throw new Error(decoded.error.message);
          state = evolve(state, decoded.event);
        }
        return state;
      });
      toolCount = listTools(m.keep as State).length;
      peaks.push(m.peak);
      return m.retained / MiB;
    },
    () => {
      const m = retainedBytes(() => {
        const byName = new Map<string, unknown>();
        for (const line of lines) {
          const e = JSON.parse(line) as { extension?: string; tools?: { name: string }[] };
          if (e.tools) for (const t of e.tools) byName.set(`${e.extension}__${t.name}`, t);
        }
        return byName;
      });
      return m.retained / MiB;
    },
  );
  return measured({
    id: "7a",
    name,
    unit: "MiB",
    toolledger: r.toolledgerMedian,
    baseline: r.baselineMedian,
    baselineName,
    target: { op: "<=", value: 1.5 },
    note: `${toolCount} tools; their JSON is ${(toolsJsonBytes / MiB).toFixed(1)} MiB (registry heap ${(r.toolledgerMedian / (toolsJsonBytes / MiB)).toFixed(2)}× the JSON)`,
    details: { samples: r, toolsJsonBytes, peakHeapDuringBuildBytes: peaks },
  });
}
