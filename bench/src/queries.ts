import {
  decide,
  listTools,
  modelView,
  type RegisteredTool,
  replay,
  resolveTool,
  type State,
  servedTool,
  type ToolledgerEvent,
} from "@toolledger/core";
import { type BenchResult, measured } from "./benchResult.js";
import { interleave, timeMs } from "./interleave.js";
import { toolName } from "./makeTools.js";
import { registryEvents } from "./sessionLog.js";

/** Microseconds per call of `fn`, over `n` calls. */
function microsPerCall(n: number, fn: (i: number) => number): number {
  let sink = 0;
  const ms = timeMs(() => {
    for (let i = 0; i < n; i++) sink += fn(i);
  });
  if (sink < 0) throw new Error("unreachable");
  return (ms * 1000) / n;
}

/** A 20,000-tool registry with deferral on and 60 tools enabled (D4–D6). */
function deferredRegistry(): State {
  const events: ToolledgerEvent[] = [
    { type: "DeferralConfigured", v: 1, mode: "lookup", alwaysLoad: ["service3__get_issue"] },
    ...registryEvents(400, 50),
  ];
  let state = replay(events);
  for (let call = 0; call < 20; call++) {
    const names = [0, 1, 2].map((k) => `service${(call * 19 + k * 7) % 400}__${toolName(k + 3)}`);
    const decision = decide(state, { type: "EnableTools", callId: `c${call}`, names });
    if (!decision.ok) throw new Error(decision.error.message);
    state = replay(decision.events, state);
  }
  if (state.enabled.length !== 60)
    throw new Error(`expected 60 enabled tools, got ${state.enabled.length}`);
  return state;
}

/**
 * Benchmark 3: the queries a host runs every turn, on a 20,000-tool registry: one
 * extension's listing (R12: must cost the extension's tools, not the registry's), the model
 * view with deferral on (D4), and resolving a mangled name (R13).
 */
export async function queries(rounds: number): Promise<BenchResult[]> {
  const small = replay(registryEvents(2, 50));
  const large = deferredRegistry();
  const ext = "service1";

  const listing = await interleave(
    { rounds, warmup: 2 },
    () => microsPerCall(20_000, () => listTools(large, { extension: ext }).length),
    () => microsPerCall(20_000, () => listTools(small, { extension: ext }).length),
  );

  const precomputed = listTools(large, { extension: ext });
  const slice = await interleave(
    { rounds, warmup: 2 },
    () => microsPerCall(20_000, () => listTools(large, { extension: ext }).length),
    () => microsPerCall(20_000, () => precomputed.slice().length),
  );

  // A fresh state object per call, as after each turn's enable or clear: the model view is
  // memoised per state, so reusing one object would time a WeakMap lookup.
  const VIEWS = 20;
  const fresh = (): State[] => Array.from({ length: VIEWS }, () => ({ ...large }));
  const all = listTools(large);
  const flat = all.map((t) => ({
    name: t.publicName,
    tool: servedTool(large, t),
    appOnly: isAppOnly(t),
  }));
  const enabled = new Set(large.enabled);
  const alwaysLoad = new Set(large.deferral.alwaysLoad);
  let states = fresh();
  const view = await interleave(
    { rounds, warmup: 1 },
    () => {
      const us = microsPerCall(VIEWS, (i) => modelView(states[i]!).deferred.length);
      states = fresh();
      return us;
    },
    () =>
      microsPerCall(VIEWS, () => {
        const tools: unknown[] = [];
        const deferred: string[] = [];
        for (const t of flat) {
          if (t.appOnly) continue;
          if (enabled.has(t.name) || alwaysLoad.has(t.name)) tools.push(t.tool);
          else deferred.push(t.name);
        }
        const prompt = `## Deferred tools\n${deferred.map((n) => `- ${n}`).join("\n")}`;
        return tools.length + prompt.length;
      }),
  );

  const byName = new Map<string, RegisteredTool>(all.map((t) => [t.publicName, t]));
  const mangled = Array.from(
    { length: 400 },
    (_, i) => `functions.service${(i * 37) % 400}.${toolName(i % 24)}`,
  );
  for (const name of mangled) {
    const r = resolveTool(large, name);
    if (!r.ok) throw new Error(r.error.message);
  }
  const resolve = await interleave(
    { rounds, warmup: 2 },
    () => microsPerCall(100_000, (i) => (resolveTool(large, mangled[i % 400]!).ok ? 1 : 0)),
    () =>
      microsPerCall(100_000, (i) => {
        const s = mangled[i % 400]!.slice("functions.".length);
        const dot = s.indexOf(".");
        return byName.get(`${s.slice(0, dot)}__${s.slice(dot + 1)}`) ? 1 : 0;
      }),
  );

  return [
    measured({
      id: "3a",
      name: "listTools({ extension }) (50 tools): 20,000- vs 100-tool registry",
      unit: "µs/call",
      toolledger: listing.toolledgerMedian,
      baseline: listing.baselineMedian,
      baselineName: "same call, 100-tool registry",
      target: { op: "<=", value: 1.5 },
      note: "R12: cost follows the extension's tools, not the registry's",
      details: { samples: listing },
    }),
    measured({
      id: "3b",
      name: "listTools({ extension }) (50 tools) on 20,000 tools",
      unit: "µs/call",
      toolledger: slice.toolledgerMedian,
      baseline: slice.baselineMedian,
      baselineName: "slice of a precomputed array",
      details: { samples: slice },
    }),
    measured({
      id: "3c",
      name: "modelView, deferral on, 20,000 tools, 60 enabled",
      unit: "µs/call",
      toolledger: view.toolledgerMedian,
      baseline: view.baselineMedian,
      baselineName: "loop over precomputed flat array + Sets",
      note: "fresh state per call (memo defeated); registry's sorted list cached",
      details: { samples: view },
    }),
    measured({
      id: "3d",
      name: "resolveTool(mangled `functions.ext.tool`), 20,000 tools",
      unit: "µs/call",
      toolledger: resolve.toolledgerMedian,
      baseline: resolve.baselineMedian,
      baselineName: "hand-normalised name + Map.get",
      details: { samples: resolve },
    }),
  ];
}

function isAppOnly(t: RegisteredTool): boolean {
  const ui = t.raw._meta?.ui as { visibility?: unknown } | undefined;
  return Array.isArray(ui?.visibility) && !ui.visibility.includes("model");
}
