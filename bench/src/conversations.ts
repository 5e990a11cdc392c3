import { statSync } from "node:fs";
import { join } from "node:path";
import {
  type Command,
  decide,
  evolve,
  initialState,
  type State,
  type ToolledgerEvent,
  withRegistry,
} from "@toolledger/core";
import { openSqliteEventStore } from "@toolledger/store-sqlite";
import { type BenchResult, measured } from "./benchResult.js";
import { interleave, timeMs } from "./interleave.js";
import { makeTools, toolName } from "./makeTools.js";
import { scratchDir } from "./scratchDir.js";

// 8: C1 — a host's registry is stored once however many conversations observe it, and a
// conversation's fold does not pay for the size of the registry it observes.

const TOOLS_PER_EXTENSION = 100;

/** The registry stream of a host with `extensions × 100` tools, as a host appends it. */
function registryEvents(extensions: number): { events: ToolledgerEvent[]; state: State } {
  let state = initialState();
  const events: ToolledgerEvent[] = [];
  const run = (command: Command) => {
    const d = decide(state, command);
    if (!d.ok) throw new Error(d.error.message);
    for (const e of d.events) {
      state = evolve(state, e);
      events.push(e);
    }
  };
  run({ type: "StartHost", hostname: "bench" });
  for (let x = 0; x < extensions; x++)
    run({ type: "AddExtension", name: `svc${x}`, kind: "stdio", configFingerprint: `fp${x}` });
  for (let x = 0; x < extensions; x++)
    run({
      type: "RecordFetch",
      extension: `svc${x}`,
      startedAtVersion: state.version,
      tools: makeTools(x, TOOLS_PER_EXTENSION),
    });
  return { events, state };
}

/** One conversation as the gateway records it: enables, calls (some refused), a compaction, a clear. */
function conversationEvents(registry: State, n: number, extensions: number): ToolledgerEvent[] {
  let own = initialState();
  const events: ToolledgerEvent[] = [];
  const run = (command: Command) => {
    const d = decide(withRegistry(own, registry), command);
    if (!d.ok) throw new Error(d.error.message);
    for (const e of d.events) {
      own = evolve(own, e);
      events.push(e);
    }
  };
  const at = "2026-11-30T12:00:00.000Z";
  run({
    type: "StartConversation",
    registryStream: "host",
    transport: "stdio",
    client: { name: "bench", version: "1" },
    at,
  });
  run({ type: "ConfigureDeferral", mode: "lookup", at });
  for (let i = 0; i < 5; i++) {
    const name = `svc${(n + i) % extensions}__${toolName(i)}`;
    run({ type: "StartCall", callId: `c${n}-${i}`, name, at });
    run({ type: "EnableTools", callId: `e${n}-${i}`, names: [name], at });
    run({ type: "StartCall", callId: `d${n}-${i}`, name, at });
    run({ type: "FinishCall", callId: `d${n}-${i}`, outcome: "ok", durationMs: 3.5, at });
  }
  run({ type: "Compact", at });
  run({ type: "Clear", at });
  run({ type: "CloseConversation", reason: "client disconnected", at });
  return events;
}

async function databaseBytes(
  dir: string,
  name: string,
  registry: ToolledgerEvent[],
  conversations: ToolledgerEvent[][],
): Promise<number> {
  const file = join(dir, `${name}.db`);
  const store = openSqliteEventStore(file);
  await store.append(
    "host",
    registry.map((event, i) => ({ eventId: `h${i}`, event })),
    "no_stream",
  );
  for (const [c, events] of conversations.entries()) {
    await store.append(
      `conv-${c}`,
      events.map((event, i) => ({ eventId: `c${c}-${i}`, event })),
      "no_stream",
    );
  }
  await store.close();
  return statSync(file).size;
}

export async function conversationsBench(rounds: number): Promise<BenchResult[]> {
  const scratch = scratchDir("conversations");
  try {
    const big = registryEvents(50);
    const small = registryEvents(5);
    const results: BenchResult[] = [];
    const registryOnly = await databaseBytes(scratch.dir, "r", big.events, []);
    const perConversation: Record<number, number> = {};
    for (const n of [1, 10, 100]) {
      const convs = Array.from({ length: n }, (_, i) => conversationEvents(big.state, i, 50));
      const bytes = await databaseBytes(scratch.dir, `n${n}`, big.events, convs);
      perConversation[n] = (bytes - registryOnly) / n;
      results.push(
        measured({
          id: `8${n === 1 ? "a" : n === 10 ? "b" : "c"}`,
          name: `bytes stored per conversation, ${n} conversation(s) over a 5,000-tool registry`,
          unit: "bytes",
          toolledger: perConversation[n]!,
          baseline: registryOnly,
          baselineName: "the registry stream stored once",
          note: `${convs[0]!.length} events per conversation; database ${registryOnly} B with the registry alone, ${bytes} B with ${n}`,
          details: { registryOnly, total: bytes, events: convs[0]!.length },
        }),
      );
    }
    const smallOnly = await databaseBytes(scratch.dir, "s", small.events, []);
    const smallConvs = Array.from({ length: 100 }, (_, i) => conversationEvents(small.state, i, 5));
    const smallPer =
      ((await databaseBytes(scratch.dir, "s100", small.events, smallConvs)) - smallOnly) / 100;
    results.push(
      measured({
        id: "8d",
        name: "bytes per conversation: 5,000-tool vs 500-tool registry (100 conversations)",
        unit: "bytes",
        toolledger: perConversation[100]!,
        baseline: smallPer,
        baselineName: "the same conversations over 500 tools",
        target: { op: "<=", value: 1.1 },
      }),
    );
    // Fold cost per conversation event: the live composition (own fold, then withRegistry)
    // over a 5,000-tool registry against the same over a 500-tool one.
    const events = conversationEvents(big.state, 0, 50);
    const smallEvents = conversationEvents(small.state, 0, 5);
    const REPEAT = 2000;
    const fold = (registry: State, list: readonly ToolledgerEvent[]) => () =>
      timeMs(() => {
        for (let r = 0; r < REPEAT; r++) {
          let own = initialState();
          let composed: State = registry;
          for (const e of list) {
            own = evolve(own, e);
            composed = withRegistry(own, registry);
          }
          if (composed.version < 0) throw new Error("unreachable");
        }
      });
    const timed = await interleave(
      { rounds: Math.max(5, rounds * 3) },
      fold(big.state, events),
      fold(small.state, smallEvents),
    );
    const perEvent = (ms: number, n: number) => (ms * 1000) / (REPEAT * n);
    results.push(
      measured({
        id: "8e",
        name: "fold per conversation event, composed with a 5,000- vs a 500-tool registry",
        unit: "µs/event",
        toolledger: perEvent(timed.toolledgerMedian, events.length),
        baseline: perEvent(timed.baselineMedian, smallEvents.length),
        baselineName: "the same over 500 tools",
        target: { op: "<=", value: 1.5 },
      }),
    );
    return results;
  } finally {
    scratch.remove();
  }
}
