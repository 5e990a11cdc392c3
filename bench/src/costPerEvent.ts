import { evolve, replay, type State, type ToolledgerEvent } from "@toolledger/core";
import { type BenchResult, measured } from "./benchResult.js";
import { interleave, timeMs } from "./interleave.js";
import { makeTools } from "./makeTools.js";
import { registryEvents } from "./sessionLog.js";

const ITERATIONS = 500;

/** Microseconds per `evolve(state, event)`, over ITERATIONS applications to the same state. */
function microsPerEvent(state: State, event: ToolledgerEvent): number {
  let sink = 0;
  const ms = timeMs(() => {
    for (let i = 0; i < ITERATIONS; i++) sink += evolve(state, event).version;
  });
  if (sink < 0) throw new Error("unreachable");
  return (ms * 1000) / ITERATIONS;
}

/**
 * Benchmark 2: one `ToolsFetched` of a 50-tool extension (a refetch that replaces its tools)
 * applied to a registry of 100 tools and to one of 20,000. The cost must not grow with the
 * registry (no whole-registry rebuild per event).
 */
export async function costPerEvent(rounds: number): Promise<BenchResult> {
  const small = replay(registryEvents(2, 50));
  const large = replay(registryEvents(400, 50));
  const tools = makeTools(1, 50, 1);
  const refetch = (state: State): ToolledgerEvent => ({
    type: "ToolsFetched",
    v: 1,
    extension: "service1",
    startedAtVersion: state.version,
    tools,
  });
  const smallEvent = refetch(small);
  const largeEvent = refetch(large);
  const r = await interleave(
    { rounds, warmup: 2 },
    () => microsPerEvent(large, largeEvent),
    () => microsPerEvent(small, smallEvent),
  );
  return measured({
    id: "2",
    name: "ToolsFetched (50 tools) on a 20,000-tool vs a 100-tool registry",
    unit: "µs/event",
    toolledger: r.toolledgerMedian,
    baseline: r.baselineMedian,
    baselineName: "same event, 100-tool registry",
    target: { op: "<=", value: 1.5 },
    note: "evolve only; toolledger column is the 20,000-tool registry",
    details: { samples: r, iterationsPerRound: ITERATIONS },
  });
}
