import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Command } from "../decide/command.js";
import { decide } from "../decide/decide.js";
import { modelView } from "../deferral/modelView.js";
import type { McpTool, ToolledgerEvent } from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { foldConversation, loadConversationState } from "../fold/foldConversation.js";
import { replay } from "../fold/replay.js";
import { CALL_HISTORY_LIMIT, initialState, type State, withRegistry } from "../fold/state.js";
import { diagnostics } from "../registry/diagnostics.js";
import type { StoredEvent } from "../store/eventStore.js";
import { InMemoryEventStore } from "../store/inMemoryEventStore.js";

const EXTENSIONS = ["github", "slack", "_vault"];
const TOOLS: McpTool[] = [
  { name: "create_issue", inputSchema: { type: "object" } },
  { name: "panel", inputSchema: { type: "object" }, _meta: { ui: { visibility: ["app"] } } },
  { name: "post", inputSchema: { type: "object" } },
];
const NAMES = [
  "github__create_issue",
  "github__panel",
  "slack__post",
  "_vault__post",
  "github__create_isue",
  "enable_tools",
];
const OUTCOMES = ["ok", "tool_error", "timeout", "cancelled", "unavailable"] as const;

type Step =
  | { stream: "registry"; command: Command }
  | { stream: "conversation"; command: Command }
  | { stream: "finish"; outcome: (typeof OUTCOMES)[number]; pick: number };

const ext = fc.constantFrom(...EXTENSIONS);
const name = fc.constantFrom(...NAMES);
const registryCommand: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    type: fc.constant("AddExtension" as const),
    name: ext,
    kind: fc.constantFrom("stdio", "platform"),
    configFingerprint: fc.constantFrom("a", "b"),
  }),
  fc.record({ type: fc.constant("RemoveExtension" as const), extension: ext }),
  fc.record({ type: fc.constant("InvalidateTools" as const), extension: ext }),
  fc.record({
    type: fc.constant("RecordFetch" as const),
    extension: ext,
    startedAtVersion: fc.constant(-1), // replaced by the current version (or one behind)
    tools: fc.subarray(TOOLS),
  }),
);
const conversationCommand: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    type: fc.constant("ConfigureDeferral" as const),
    mode: fc.constantFrom("off" as const, "lookup" as const),
    alwaysLoad: fc.subarray(NAMES, { maxLength: 1 }),
  }),
  fc.record({
    type: fc.constant("EnableTools" as const),
    callId: fc.nat(20).map((i) => `e${i}`),
    names: fc.array(name, { minLength: 1, maxLength: 2 }),
  }),
  fc.record({
    type: fc.constant("StartCall" as const),
    callId: fc.nat(1000).map((i) => `c${i}`),
    name,
  }),
  fc.constant({ type: "Compact" as const }),
  fc.constant({ type: "Clear" as const }),
);
const steps: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof(
    {
      weight: 3,
      arbitrary: registryCommand.map((command) => ({ stream: "registry" as const, command })),
    },
    {
      weight: 3,
      arbitrary: conversationCommand.map((command) => ({
        stream: "conversation" as const,
        command,
      })),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        stream: fc.constant("finish" as const),
        outcome: fc.constantFrom(...OUTCOMES),
        pick: fc.nat(),
      }),
    },
  ),
  { maxLength: 60 },
);

interface Run {
  registry: StoredEvent[];
  conversation: StoredEvent[];
  /** The composed state a live host would have served after each stored event. */
  served: { globalPosition: number; state: State }[];
}

/** Runs steps the way a live host does: registry commands against the registry, conversation commands against the composed state. */
function run(input: Step[]): Run {
  let registry = initialState();
  let own = initialState();
  let global = 0;
  const out: Run = { registry: [], conversation: [], served: [] };
  const store = (streamId: string, list: StoredEvent[], event: ToolledgerEvent) => {
    global++;
    list.push({
      streamId,
      streamPosition: list.length + 1,
      globalPosition: global,
      eventId: `ev-${global}`,
      event,
      metadata: {},
      recordedAt: "2026-11-30T00:00:00.000Z",
    });
  };
  const apply = (stream: "registry" | "conversation", command: Command) => {
    const decision = decide(
      stream === "registry" ? registry : withRegistry(own, registry),
      command,
    );
    if (!decision.ok) return;
    for (const event of decision.events) {
      if (stream === "registry") {
        registry = evolve(registry, event);
        store("host-1", out.registry, event);
      } else {
        own = evolve(own, event);
        store("conv-1", out.conversation, event);
      }
      out.served.push({ globalPosition: global, state: withRegistry(own, registry) });
    }
  };
  apply("registry", { type: "StartHost", hostname: "h1" });
  apply("conversation", {
    type: "StartConversation",
    registryStream: "host-1",
    transport: "stdio",
  });
  for (const s of input) {
    if (s.stream === "finish") {
      const open = own.calls.inFlight;
      if (open.length === 0) continue;
      const callId = open[s.pick % open.length]!.callId;
      apply("conversation", { type: "FinishCall", callId, outcome: s.outcome, durationMs: 3 });
    } else if (s.command.type === "RecordFetch") {
      apply("registry", { ...s.command, startedAtVersion: registry.version });
    } else {
      apply(s.stream, s.command);
    }
  }
  return out;
}

describe("C1 a conversation is the fold of its stream and its registry stream in global order", () => {
  it("foldConversation reproduces, at every position, the state the live host served", () => {
    fc.assert(
      fc.property(steps, (input) => {
        const r = run(input);
        const folded = [...foldConversation(r.conversation, new Map([["host-1", r.registry]]))];
        expect(folded.map((s) => s.stored.globalPosition)).toEqual(
          r.served.map((s) => s.globalPosition),
        );
        folded.forEach((step, i) => {
          const live = r.served[i]!.state;
          expect(modelView(step.state)).toEqual(modelView(live));
          expect(step.state.enabled).toEqual(live.enabled);
          expect(step.state.calls).toEqual(live.calls);
          expect(diagnostics(step.state)).toEqual(diagnostics(live));
        });
      }),
      { numRuns: 150 },
    );
  });

  it("equals a plain replay of both streams merged by global position", () => {
    fc.assert(
      fc.property(steps, (input) => {
        const r = run(input);
        const merged = [...r.registry, ...r.conversation]
          .sort((a, b) => a.globalPosition - b.globalPosition)
          .map((s) => s.event);
        const plain = replay(merged);
        const steps = foldConversation(r.conversation, new Map([["host-1", r.registry]]));
        let last = steps.next();
        while (!last.done) last = steps.next();
        expect(JSON.parse(JSON.stringify(last.value))).toEqual(JSON.parse(JSON.stringify(plain)));
      }),
      { numRuns: 100 },
    );
  });

  it("loads the same state from a store (conversation and registry streams read separately)", async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (input) => {
        const r = run(input);
        const store = new InMemoryEventStore();
        const all = [...r.registry, ...r.conversation].sort(
          (a, b) => a.globalPosition - b.globalPosition,
        );
        for (const s of all)
          await store.append(s.streamId, [{ eventId: s.eventId, event: s.event }]);
        const { state, version } = await loadConversationState(store, "conv-1");
        expect(version).toBe(r.conversation.length);
        expect(modelView(state)).toEqual(modelView(r.served.at(-1)!.state));
        expect(state.calls).toEqual(r.served.at(-1)!.state.calls);
      }),
      { numRuns: 40 },
    );
  });
});

describe("C4 the call summary stays bounded", () => {
  it("keeps counts exact and at most CALL_HISTORY_LIMIT recent calls, however many calls", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...OUTCOMES), { minLength: 1, maxLength: 80 }),
        (outcomes) => {
          let s = initialState();
          const apply = (c: Command) => {
            const d = decide(s, c);
            if (!d.ok) throw new Error(d.error.message);
            for (const e of d.events) s = evolve(s, e);
          };
          apply({ type: "AddExtension", name: "github", kind: "stdio", configFingerprint: "a" });
          apply({ type: "RecordFetch", extension: "github", startedAtVersion: 1, tools: TOOLS });
          outcomes.forEach((outcome, i) => {
            apply({ type: "StartCall", callId: `c${i}`, name: "github__create_issue" });
            apply({ type: "FinishCall", callId: `c${i}`, outcome, durationMs: i });
          });
          expect(s.calls.started).toBe(outcomes.length);
          expect(s.calls.finished).toBe(outcomes.length);
          expect(s.calls.recent.length).toBe(Math.min(outcomes.length, CALL_HISTORY_LIMIT));
          expect(s.calls.recent.at(-1)!.callId).toBe(`c${outcomes.length - 1}`);
          expect(s.calls.inFlight).toEqual([]);
          for (const o of OUTCOMES) {
            expect(s.calls.outcomes[o]).toBe(outcomes.filter((x) => x === o).length);
          }
        },
      ),
    );
  });
});
