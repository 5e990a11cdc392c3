import {
  type Compacted,
  decide,
  EVENT_SCHEMA_VERSION,
  evolve,
  initialState,
  type McpTool,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import { isAppOnlyTool, makeTools, toolName } from "./makeTools.js";
import { pick, seededRandom } from "./random.js";

const v = EVENT_SCHEMA_VERSION;

export interface SessionLogOptions {
  /** Total number of events. */
  events: number;
  extensions: number;
  toolsPerExtension: number;
  /** EnableToolsRequested + EnableToolsResponded pairs (D6). */
  enablePairs: number;
  /** Refetches at the current version (they replace the extension's tools). */
  fetches: number;
  /** An invalidation followed by a fetch that started before it (R11: kept, changes nothing). */
  staleFetches: number;
  failedFetches: number;
  compactions: number;
  clears: number;
  /** An extension removed, added back and fetched. */
  replacements: number;
  seed: number;
}

/**
 * The mix of a long session scaled to `events` (the issue's: 1,000,000 events, 200 extensions
 * of 50 tools, 10,000 enable pairs). Every event not otherwise accounted for is a
 * `ToolsInvalidated`: servers that send `tools/list_changed` far more often than the host
 * refetches. Fetches (50 tools, ~29 KB each) are ~1% of the events and ~70% of the bytes.
 */
export function sessionLogOptions(
  events: number,
  overrides: Partial<SessionLogOptions> = {},
): SessionLogOptions {
  const scale = events / 1_000_000;
  const n = (x: number) => Math.max(1, Math.round(x * scale));
  return {
    events,
    extensions: 200,
    toolsPerExtension: 50,
    enablePairs: n(10_000),
    fetches: n(8_000),
    staleFetches: n(1_000),
    failedFetches: n(2_500),
    compactions: n(200),
    clears: n(50),
    replacements: n(100),
    seed: 42,
    ...overrides,
  };
}

interface Extension {
  index: number;
  name: string;
  key: string;
  kind: string;
  exposeUnprefixed: boolean;
  hidden: boolean;
  generation: number;
  tools: McpTool[];
}

type Action =
  | "pair"
  | "fetch"
  | "stale"
  | "failed"
  | "compact"
  | "clear"
  | "replace"
  | "invalidate";
const EVENTS_PER_ACTION: Record<Action, number> = {
  pair: 2,
  fetch: 1,
  stale: 2,
  failed: 1,
  compact: 1,
  clear: 1,
  replace: 3,
  invalidate: 1,
};

/**
 * A deterministic, realistic session log: deferral configured, every extension added and
 * fetched, then refetch/invalidation churn with enable pairs, compactions, clears and
 * replaced extensions spread evenly through it. Versions and `Compacted` payloads come from
 * folding the events as they are made, so the log is one a real host could have written.
 */
export function* sessionLog(options: SessionLogOptions): Generator<ToolledgerEvent> {
  const random = seededRandom(options.seed);
  const t0 = Date.UTC(2026, 0, 1);
  let emitted = 0;
  let state: State = initialState();
  const at = () => new Date(t0 + emitted * 250).toISOString();
  function* emit(event: ToolledgerEvent): Generator<ToolledgerEvent> {
    state = evolve(state, event);
    emitted++;
    yield event;
  }

  const extensions: Extension[] = [];
  for (let i = 0; i < options.extensions; i++) {
    const unprefixed = i === 3;
    extensions.push({
      index: i,
      name: unprefixed ? "Developer" : `Service ${i}`,
      key: unprefixed ? "developer" : `service${i}`,
      kind: unprefixed ? "builtin" : i % 20 === 0 ? "platform" : "stdio",
      exposeUnprefixed: unprefixed,
      hidden: i === 7,
      generation: 0,
      tools: makeTools(i, options.toolsPerExtension),
    });
  }
  const added = (x: Extension): ToolledgerEvent => ({
    type: "ExtensionAdded",
    v,
    at: at(),
    name: x.name,
    kind: x.kind,
    exposeUnprefixed: x.exposeUnprefixed,
    hidden: x.hidden,
    availableTools: [],
    configFingerprint: `sha256:${(x.index * 2654435761).toString(16).padStart(16, "0")}`,
  });
  const fetched = (x: Extension, startedAtVersion: number): ToolledgerEvent => ({
    type: "ToolsFetched",
    v,
    at: at(),
    extension: x.key,
    startedAtVersion,
    tools: x.tools,
  });
  const publicName = (x: Extension, i: number) =>
    x.exposeUnprefixed ? toolName(i) : `${x.key}__${toolName(i)}`;
  const visible = extensions.filter((x) => !x.hidden);

  const alwaysLoad = [
    publicName(visible[1]!, 0),
    publicName(visible[2]!, 1),
    "service1__no_such_tool",
  ];
  yield* emit({ type: "DeferralConfigured", v, at: at(), mode: "lookup", alwaysLoad });
  for (const x of extensions) yield* emit(added(x));
  for (const x of extensions) yield* emit(fetched(x, state.version));

  const remaining: Record<Action, number> = {
    pair: options.enablePairs,
    fetch: options.fetches,
    stale: options.staleFetches,
    failed: options.failedFetches,
    compact: options.compactions,
    clear: options.clears,
    replace: options.replacements,
    invalidate: 0,
  };
  let planned = emitted;
  for (const [action, count] of Object.entries(remaining))
    planned += count * EVENTS_PER_ACTION[action as Action];
  if (planned > options.events) {
    throw new Error(`the mix needs ${planned} events, more than the ${options.events} asked for`);
  }
  remaining.invalidate = options.events - planned;
  const actions = Object.keys(remaining) as Action[];
  let left = actions.reduce((sum, a) => sum + remaining[a], 0);
  let callId = 0;

  while (left > 0) {
    let r = pick(random, left);
    let action: Action = "invalidate";
    for (const a of actions) {
      if (r < remaining[a]) {
        action = a;
        break;
      }
      r -= remaining[a];
    }
    remaining[action]--;
    left--;
    const x = extensions[pick(random, extensions.length)]!;
    switch (action) {
      case "invalidate":
        yield* emit({ type: "ToolsInvalidated", v, at: at(), extension: x.key });
        break;
      case "fetch":
        if (random() < 0.1) {
          x.generation++;
          x.tools = makeTools(x.index, options.toolsPerExtension, x.generation);
        }
        yield* emit(fetched(x, state.version));
        break;
      case "stale": {
        const startedAt = state.version;
        yield* emit({ type: "ToolsInvalidated", v, at: at(), extension: x.key });
        yield* emit(fetched(x, startedAt));
        break;
      }
      case "failed":
        yield* emit({
          type: "ToolsFetchFailed",
          v,
          at: at(),
          extension: x.key,
          startedAtVersion: state.version,
          error: "MCP error -32000: Connection closed (server exited with code 1)",
        });
        break;
      case "replace":
        yield* emit({ type: "ExtensionRemoved", v, at: at(), extension: x.key });
        yield* emit(added(x));
        yield* emit(fetched(x, state.version));
        break;
      case "compact": {
        const decision = decide(state, { type: "Compact", at: at() });
        if (!decision.ok) throw new Error(decision.error.message);
        yield* emit(decision.events[0] as Compacted);
        break;
      }
      case "clear":
        yield* emit({ type: "Cleared", v, at: at() });
        break;
      case "pair": {
        const id = `call_${(callId++).toString(36)}`;
        const names: string[] = [];
        for (let k = 1 + pick(random, 3); k > 0; k--) {
          const owner = visible[pick(random, visible.length)]!;
          let i = pick(random, options.toolsPerExtension);
          if (isAppOnlyTool(i)) i--;
          names.push(publicName(owner, i));
        }
        const ok = random() >= 0.01;
        if (!ok) names.push(`${names[0]}_typo`);
        yield* emit({ type: "EnableToolsRequested", v, at: at(), callId: id, names });
        yield* emit(
          ok
            ? { type: "EnableToolsResponded", v, at: at(), callId: id, ok: true }
            : {
                type: "EnableToolsResponded",
                v,
                at: at(),
                callId: id,
                ok: false,
                error: {
                  code: "INVALID_TOOL_NAMES",
                  message: `enable_tools enabled nothing: ${JSON.stringify(names[names.length - 1])}: unknown tool`,
                  invalid: [
                    {
                      name: names[names.length - 1]!,
                      reason: "unknown tool",
                      suggestions: [names[0]!],
                    },
                  ],
                },
              },
        );
        break;
      }
    }
  }
}

/** The events that build a registry of `extensions` × `toolsPerExtension` tools (R6, R9). */
export function registryEvents(extensions: number, toolsPerExtension: number): ToolledgerEvent[] {
  const events: ToolledgerEvent[] = [];
  for (let i = 0; i < extensions; i++) {
    events.push({
      type: "ExtensionAdded",
      v,
      name: `Service ${i}`,
      kind: "stdio",
      exposeUnprefixed: false,
      hidden: false,
      availableTools: [],
      configFingerprint: `sha256:${i}`,
    });
  }
  for (let i = 0; i < extensions; i++) {
    events.push({
      type: "ToolsFetched",
      v,
      extension: `service${i}`,
      startedAtVersion: extensions,
      tools: makeTools(i, toolsPerExtension),
    });
  }
  return events;
}
