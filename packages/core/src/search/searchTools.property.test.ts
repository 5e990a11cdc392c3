import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Command } from "../decide/command.js";
import { decide } from "../decide/decide.js";
import { classifyTool } from "../deferral/classifyTool.js";
import type { ToolledgerEvent } from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { replay } from "../fold/replay.js";
import { initialState, type State } from "../fold/state.js";
import { isWinner } from "../naming/nameOwners.js";
import { listTools } from "../registry/listTools.js";
import { reproduceSearch } from "./searchAnswer.js";
import { MAX_SEARCH_LIMIT, searchTools } from "./searchTools.js";

// S1: what a search may return is decided by classifyTool alone: only tools it classes
// "deferred" (and that win their name, R10) are ever found; hidden extensions (R8), app-only
// tools (D3), eager ones (always-load, enabled, platform) never are, whatever the query.
// S2: a search recorded in the log gives the same names when replayed.

const EXTS = [
  { name: "github", hidden: false, kind: "stdio" },
  { name: "_secret", hidden: true, kind: "stdio" },
  { name: "Developer", hidden: false, kind: "platform" },
  { name: "notes", hidden: false, kind: "stdio" },
  { name: "files", hidden: false, kind: "streamable_http" },
];
const WORDS = ["issue", "create", "file", "read", "note", "search", "branch", "delete", "list"];
const TOOL_NAMES = ["create_issue", "read_file", "add_note", "search", "list", "delete_branch"];

type Op =
  | { op: "add"; ext: number }
  | { op: "fetch"; ext: number; tools: number[]; appOnly: number[]; words: number[] }
  | { op: "deferral"; mode: "off" | "lookup" | "search" | "auto"; alwaysLoad: string[] }
  | { op: "enable"; names: string[] };

const ext = fc.nat(EXTS.length - 1);
const publicNames = EXTS.flatMap((e) => TOOL_NAMES.map((t) => `${e.name}__${t}`));
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant("add" as const), ext }) },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant("fetch" as const),
      ext,
      tools: fc.uniqueArray(fc.nat(TOOL_NAMES.length - 1), { minLength: 1, maxLength: 5 }),
      appOnly: fc.array(fc.nat(TOOL_NAMES.length - 1), { maxLength: 2 }),
      words: fc.array(fc.nat(WORDS.length - 1), { maxLength: 6 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("deferral" as const),
      mode: fc.constantFrom("off", "lookup", "search", "auto"),
      alwaysLoad: fc.subarray(publicNames, { maxLength: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("enable" as const),
      names: fc.subarray(publicNames, { minLength: 1, maxLength: 3 }),
    }),
  },
);
const query = fc.oneof(
  fc
    .array(fc.constantFrom(...WORDS, "the", "my", "issues", "reading"), {
      minLength: 1,
      maxLength: 4,
    })
    .map((ws) => ws.join(" ")),
  fc.constantFrom("/./", "/issue|note/", "/^notes__/", "/file$/", "/(a+)+$/"),
);

function command(o: Op, state: State, n: number): Command {
  switch (o.op) {
    case "add": {
      const x = EXTS[o.ext]!;
      return {
        type: "AddExtension",
        name: x.name,
        kind: x.kind,
        hidden: x.hidden,
        configFingerprint: "fp",
      };
    }
    case "fetch": {
      const x = EXTS[o.ext]!;
      return {
        type: "RecordFetch",
        extension: x.name,
        startedAtVersion: state.version,
        tools: o.tools.map((i) => ({
          name: TOOL_NAMES[i]!,
          description: `${o.words.map((w) => WORDS[w]).join(" ")} ${TOOL_NAMES[i]!.replace("_", " ")}`,
          inputSchema: { type: "object", properties: { path: { type: "string" } } },
          ...(o.appOnly.includes(i) ? { _meta: { ui: { visibility: ["app"] } } } : {}),
        })),
      };
    }
    case "deferral":
      return { type: "ConfigureDeferral", mode: o.mode, alwaysLoad: o.alwaysLoad, budget: 30 };
    case "enable":
      return { type: "EnableTools", callId: `c${n}`, names: o.names };
  }
}

function run(ops: readonly Op[]): { state: State; log: ToolledgerEvent[] } {
  let state = initialState();
  const log: ToolledgerEvent[] = [];
  ops.forEach((o, n) => {
    const decision = decide(state, command(o, state, n));
    if (!decision.ok) return;
    for (const e of decision.events) {
      state = evolve(state, e);
      log.push(e);
    }
  });
  return { state, log };
}

describe("search results follow classifyTool (S1)", () => {
  it("hidden, app-only and anything classifyTool does not serve deferred never appear; every deferred match can", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 25 }), query, (ops, q) => {
        const { state } = run(ops);
        const result = searchTools(state, q, { limit: MAX_SEARCH_LIMIT });
        if (!result.ok) return;
        const byWire = new Map(
          listTools(state, { includeHidden: true }).map((t) => [t.wireName, t]),
        );
        for (const hit of result.hits) {
          const tool = byWire.get(hit.name);
          expect(tool, hit.name).toBeDefined();
          expect(isWinner(state, tool!)).toBe(true);
          expect(classifyTool(state, tool!).class).toBe("deferred");
        }
        // And the other way: `/./` finds every deferred tool (the registry is small here).
        if (q === "/./") {
          const deferred = listTools(state)
            .filter((t) => classifyTool(state, t).class === "deferred")
            .map((t) => t.wireName)
            .sort();
          expect(result.hits.map((h) => h.name).sort()).toEqual(deferred);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("a recorded search is reproduced from the log (S2), and ranking is deterministic", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 25 }), query, (ops, q) => {
        const { state, log } = run(ops);
        const decision = decide(state, { type: "SearchTools", callId: "s1", query: q });
        expect(decision.ok).toBe(true);
        if (!decision.ok) return;
        const event = decision.events[0]!;
        expect(event.type).toBe("ToolsSearched");
        if (event.type !== "ToolsSearched") return;
        // A fresh fold of the log (new objects, no memoised index) gives the same names.
        const replayed = replay(JSON.parse(JSON.stringify(log)) as ToolledgerEvent[]);
        expect(reproduceSearch(replayed, event)).toEqual({ same: true, results: event.results });
      }),
      { numRuns: 200 },
    );
  });
});
