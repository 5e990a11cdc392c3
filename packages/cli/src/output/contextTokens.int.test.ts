import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import {
  type ExtensionConfig,
  ExtensionConnection,
  exampleServers,
  fetchTools,
} from "@toolledger/adapters-mcp";
import {
  type Command,
  decide,
  ENABLE_TOOLS_TOOL,
  evolve,
  initialState,
  listTools,
  type McpTool,
  modelView,
  type State,
} from "@toolledger/core";
import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { countTokens as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { beforeAll, describe, expect, test } from "vitest";
import { contextTokens, formatContextTokens, TOKENIZER } from "./contextTokens.js";

/** `@modelcontextprotocol/server-everything`, installed as a dev dependency (no network). */
function everything(): ExtensionConfig {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve("@modelcontextprotocol/server-everything/package.json");
  const bin = (JSON.parse(readFileSync(pkg, "utf8")) as { bin: Record<string, string> }).bin;
  return {
    type: "stdio",
    name: "everything",
    command: process.execPath,
    args: [join(dirname(pkg), Object.values(bin)[0]!), "stdio"],
  };
}

/** The real tool lists: the reference server's and the servers this project ships. */
const lists = new Map<string, McpTool[]>();

beforeAll(async () => {
  for (const config of [everything(), ...exampleServers()]) {
    const c = await ExtensionConnection.connect(config, { connectTimeoutMs: 20_000 });
    try {
      lists.set(
        config.name,
        (await fetchTools(c, { requestTimeoutMs: 20_000, maxPages: 10 })).tools,
      );
    } finally {
      await c.close();
    }
  }
}, 60_000);

function registry(names: readonly string[], mode: "off" | "lookup"): State {
  let state = initialState();
  const run = (command: Command) => {
    const d = decide(state, command);
    if (!d.ok) throw new Error(d.error.message);
    for (const e of d.events) state = evolve(state, e);
  };
  run({ type: "ConfigureDeferral", mode, alwaysLoad: [] });
  for (const name of names)
    run({ type: "AddExtension", name, kind: "stdio", configFingerprint: name });
  for (const name of names)
    run({
      type: "RecordFetch",
      extension: name,
      startedAtVersion: state.version,
      tools: lists.get(name)!,
    });
  return state;
}

/** A tool definition as the test writes it, independently of the code under test. */
const definition = (name: string, description: string | undefined, schema: unknown) =>
  JSON.stringify({
    name,
    ...(description === undefined ? {} : { description }),
    input_schema: schema ?? { type: "object" },
  });

describe(`the token figure (${TOKENIZER}) on real tool lists`, () => {
  test("deferral off: the sum of every visible tool's definition, counted by the tokenizer", () => {
    for (const names of [
      ["everything"],
      ["notes", "calculator"],
      ["everything", "notes", "calculator"],
    ]) {
      const state = registry(names, "off");
      const tools = listTools(state);
      expect(tools.length).toBeGreaterThan(5);
      const expected = tools.reduce(
        (n, t) => n + o200k(definition(t.publicName, t.raw.description, t.raw.inputSchema)),
        0,
      );
      // D4: what deferral lookup would have sent from the same registry, as a lookup registry receives it.
      expect(contextTokens(state)).toEqual({
        received: expected,
        deferralOff: expected,
        lookup: contextTokens(registry(names, "lookup")).received,
      });
    }
  });

  test("deferral off: the token line says what deferral lookup would have saved, or cost", () => {
    const names = ["everything", "notes", "calculator"];
    const t = contextTokens(registry(names, "off"));
    expect(t.lookup).toBeLessThan(t.deferralOff / 3);
    const saved = Math.round((1 - t.lookup! / t.deferralOff) * 100);
    expect(formatContextTokens(t)).toBe(
      `${t.deferralOff.toLocaleString("en-US")} tokens of tool definitions with deferral off; sending ${t.lookup!.toLocaleString("en-US")} would have saved ${saved}% with deferral lookup (o200k_base)`,
    );
    expect(formatContextTokens({ received: 100, deferralOff: 100, lookup: 120 })).toBe(
      "100 tokens of tool definitions with deferral off; sending 120 would have cost 20% more with deferral lookup (o200k_base)",
    );
    // Nothing to defer: no line about deferral lookup.
    expect(contextTokens(initialState())).toEqual({ received: 0, deferralOff: 0 });
  });

  test("D4: with deferral on the model receives enable_tools and the prompt section; an enabled tool adds exactly its definition", () => {
    const names = ["everything", "notes", "calculator"];
    const state = registry(names, "lookup");
    const off = contextTokens(registry(names, "off")).deferralOff;
    const view = modelView(state);
    const base =
      o200k(
        definition(
          ENABLE_TOOLS_TOOL.name,
          ENABLE_TOOLS_TOOL.description,
          ENABLE_TOOLS_TOOL.inputSchema,
        ),
      ) + o200k(view.systemPrompt!);
    expect(contextTokens(state)).toEqual({ received: base, deferralOff: off });
    expect(base).toBeLessThan(off / 3);

    const target =
      listTools(state).find((t) => t.publicName === "everything__get-sum") ?? listTools(state)[0]!;
    const d = decide(state, { type: "EnableTools", callId: "c1", names: [target.publicName] });
    if (!d.ok) throw new Error(d.error.message);
    const enabled = d.events.reduce(evolve, state);
    const after = modelView(enabled);
    expect(contextTokens(enabled)).toEqual({
      received:
        o200k(
          definition(
            ENABLE_TOOLS_TOOL.name,
            ENABLE_TOOLS_TOOL.description,
            ENABLE_TOOLS_TOOL.inputSchema,
          ),
        ) +
        o200k(definition(target.publicName, target.raw.description, target.raw.inputSchema)) +
        o200k(after.systemPrompt!),
      deferralOff: off,
    });
  });

  test("how close other measures come: cl100k_base and characters / 4 against o200k_base", () => {
    const rows: string[] = [];
    for (const names of [
      ["everything"],
      ["notes", "calculator"],
      ["everything", "notes", "calculator"],
    ]) {
      const on = modelView(registry(names, "lookup"));
      const offTools = listTools(registry(names, "off"));
      const texts = offTools.map((t) =>
        definition(t.publicName, t.raw.description, t.raw.inputSchema),
      );
      const received = [
        ...on.tools.map((t) => definition(t.name, t.description, t.inputSchema)),
        on.systemPrompt ?? "",
      ];
      const measure = (count: (s: string) => number) => {
        const off = texts.reduce((n, s) => n + count(s), 0);
        const rx = received.reduce((n, s) => n + count(s), 0);
        return { off, rx, saved: 1 - rx / off };
      };
      const a = measure(o200k);
      const b = measure(cl100k);
      const c = measure((s) => Math.ceil(s.length / 4));
      rows.push(
        `${names.join("+")}: ${offTools.length} tools; off ${a.off} o200k / ${b.off} cl100k / ${c.off} chars÷4; saved ${(a.saved * 100).toFixed(1)}% / ${(b.saved * 100).toFixed(1)}% / ${(c.saved * 100).toFixed(1)}%`,
      );
      // Totals differ by tokenizer; the share deferral saves barely does.
      expect(Math.abs(b.off / a.off - 1)).toBeLessThan(0.1);
      expect(Math.abs(c.off / a.off - 1)).toBeLessThan(0.35);
      expect(Math.abs(b.saved - a.saved)).toBeLessThan(0.02);
      expect(Math.abs(c.saved - a.saved)).toBeLessThan(0.05);
    }
    console.log(rows.join("\n"));
  });
});
