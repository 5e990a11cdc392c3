import type { McpTool } from "../events/events.js";
import type { State } from "../fold/state.js";
import { compareBytes as compareName, sortBytewise } from "../naming/compareBytes.js";
import { listTools } from "../registry/listTools.js";
import { servedTool } from "../registry/servedTool.js";
import { SEARCH_TOOLS_NAME, SEARCH_TOOLS_TOOL, searchPrompt } from "../search/searchPrompt.js";
import { classifyTool } from "./classifyTool.js";
import { type DeferralStrategy, strategyFor } from "./deferralStrategy.js";

export const ENABLE_TOOLS_NAME = "enable_tools";

/**
 * Claude Code defers MCP tools behind its own tool search unless a tool says it must always
 * be loaded: the built-ins say so, or the model could not reach the deferred tools at all.
 */
export const ALWAYS_LOAD_META = Object.freeze({ "anthropic/alwaysLoad": true });

/** The `enable_tools` tool the model gets when deferral is on (D4, D5). */
export const ENABLE_TOOLS_TOOL: McpTool = Object.freeze({
  name: ENABLE_TOOLS_NAME,
  description:
    "Load the full definitions of deferred tools so you can call them. Pass the exact names listed under deferred tools. Enabling runs nothing and grants no permission.",
  inputSchema: {
    type: "object",
    properties: {
      names: {
        type: "array",
        items: { type: "string" },
        minItems: 1,
        description: "Exact names of deferred tools to enable.",
      },
    },
    required: ["names"],
    additionalProperties: false,
  },
  _meta: ALWAYS_LOAD_META,
});

/** `enable_tools` as search mode offers it: the names come from `search_tools` (S1). */
export const ENABLE_TOOLS_TOOL_SEARCH: McpTool = Object.freeze({
  ...ENABLE_TOOLS_TOOL,
  description:
    "Load the full definitions of deferred tools so you can call them. Pass exact names returned by search_tools. Enabling runs nothing and grants no permission.",
});

export interface ModelView {
  /** Full schemas the model gets, named with wire names (R14), byte-wise sorted by name (stable for prompt caching). */
  tools: McpTool[];
  /** Wire names of deferred tools, sorted (names only). */
  deferred: string[];
  /**
   * The system-prompt section: the deferred names (lookup), or each server with a summary and
   * its count of deferred tools (search); null when nothing is deferred or deferral is off.
   */
  systemPrompt: string | null;
  /** S1: how the deferred tools are offered (`auto` resolved to lookup or search). */
  strategy: DeferralStrategy;
}

const cache = new WeakMap<State, ModelView>();

/**
 * D4: what the model sees. With deferral off, every visible tool and no section, whatever
 * the log holds; P2: no definition that is not approved (a changed tool as approved, a
 * pending one not at all). Memoised per state object (states are immutable).
 */
export function modelView(state: State): ModelView {
  const cached = cache.get(state);
  if (cached) return cached;
  const tools: McpTool[] = [];
  const deferred: string[] = [];
  const deferredByOwner = new Map<string, number>();
  let renamed = false;
  for (const tool of listTools(state)) {
    const c = classifyTool(state, tool);
    // R14: the model sees wire names (the public name whenever it fits).
    if (c.class === "eager") tools.push(servedTool(state, tool));
    else if (c.class === "deferred") {
      deferred.push(tool.wireName);
      if (tool.wireName !== ENABLE_TOOLS_NAME && tool.wireName !== SEARCH_TOOLS_NAME)
        deferredByOwner.set(tool.owner, (deferredByOwner.get(tool.owner) ?? 0) + 1);
    }
    // P2: a changed tool is seen as it was approved until a person approves the change.
    else if (c.approved?.class === "eager") tools.push(servedTool(state, c.approved.tool));
    // (Not counted for search's summary: search indexes current definitions, and ranking by a
    // changed text that awaits approval would let it steer the model; see decisions, issue 24.)
    else if (c.approved?.class === "deferred") deferred.push(tool.wireName);
    if (tool.wireName !== tool.publicName) renamed = true;
  }
  if (renamed) {
    // Sorted by the names served, which a wire name may have moved.
    sortBytewise(tools, (t) => t.name);
    sortBytewise(deferred, (n) => n);
  }
  let systemPrompt: string | null = null;
  // The built-ins own their names: deferred registry tools of those names are not offered.
  const strategy = strategyFor(state.deferral, withoutBuiltins(deferred, state.deferral.mode));
  if (strategy === "search") {
    insertSorted(tools, ENABLE_TOOLS_TOOL_SEARCH);
    insertSorted(tools, SEARCH_TOOLS_TOOL);
    removeName(deferred, ENABLE_TOOLS_NAME);
    removeName(deferred, SEARCH_TOOLS_NAME);
    systemPrompt = searchPrompt(state, deferredByOwner);
  } else if (strategy === "lookup") {
    insertSorted(tools, ENABLE_TOOLS_TOOL);
    removeName(deferred, ENABLE_TOOLS_NAME);
    if (deferred.length > 0) {
      systemPrompt = [
        "## Deferred tools",
        `These tools are available but their definitions are not loaded. Call \`${ENABLE_TOOLS_NAME}\` with their exact names to load them before use:`,
        ...deferred.map((n) => `- ${n}`),
      ].join("\n");
    }
  }
  const view = { tools, deferred, systemPrompt, strategy };
  cache.set(state, view);
  return view;
}

function removeName(names: string[], name: string): void {
  const at = names.indexOf(name);
  if (at !== -1) names.splice(at, 1);
}

/** The deferred names `auto` weighs: those a names list would show (no built-in's name). */
function withoutBuiltins(
  deferred: readonly string[],
  mode: State["deferral"]["mode"],
): readonly string[] {
  if (mode !== "auto" || !deferred.includes(ENABLE_TOOLS_NAME)) return deferred;
  return deferred.filter((n) => n !== ENABLE_TOOLS_NAME);
}

function insertSorted(tools: McpTool[], tool: McpTool): void {
  const at = tools.findIndex((t) => t.name === tool.name);
  // A registry tool that took the reserved name yields to the built-in one.
  if (at !== -1) tools.splice(at, 1);
  const i = tools.findIndex((t) => compareName(t.name, tool.name) > 0);
  tools.splice(i === -1 ? tools.length : i, 0, tool);
}
