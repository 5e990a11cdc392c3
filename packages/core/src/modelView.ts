import { classifyTool } from "./classifyTool.js";
import { compareBytes as compareName, sortBytewise } from "./compareBytes.js";
import type { McpTool } from "./events.js";
import { listTools } from "./listTools.js";
import { servedTool } from "./servedTool.js";
import type { State } from "./state.js";

export const ENABLE_TOOLS_NAME = "enable_tools";

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
});

export interface ModelView {
  /** Full schemas the model gets, named with wire names (R14), byte-wise sorted by name (stable for prompt caching). */
  tools: McpTool[];
  /** Wire names of deferred tools, sorted (names only). */
  deferred: string[];
  /** The system-prompt section listing deferred names; null when nothing is deferred or deferral is off. */
  systemPrompt: string | null;
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
  let renamed = false;
  for (const tool of listTools(state)) {
    const c = classifyTool(state, tool);
    // R14: the model sees wire names (the public name whenever it fits).
    if (c.class === "eager") tools.push(servedTool(state, tool));
    else if (c.class === "deferred") deferred.push(tool.wireName);
    // P2: a changed tool is seen as it was approved until a person approves the change.
    else if (c.approved?.class === "eager") tools.push(servedTool(state, c.approved.tool));
    else if (c.approved?.class === "deferred") deferred.push(tool.wireName);
    if (tool.wireName !== tool.publicName) renamed = true;
  }
  if (renamed) {
    // Sorted by the names served, which a wire name may have moved.
    sortBytewise(tools, (t) => t.name);
    sortBytewise(deferred, (n) => n);
  }
  let systemPrompt: string | null = null;
  if (state.deferral.mode === "lookup") {
    insertSorted(tools, ENABLE_TOOLS_TOOL);
    // The built-in owns its name: a deferred registry tool of that name is not offered either.
    const shadowed = deferred.indexOf(ENABLE_TOOLS_NAME);
    if (shadowed !== -1) deferred.splice(shadowed, 1);
    if (deferred.length > 0) {
      systemPrompt = [
        "## Deferred tools",
        `These tools are available but their definitions are not loaded. Call \`${ENABLE_TOOLS_NAME}\` with their exact names to load them before use:`,
        ...deferred.map((n) => `- ${n}`),
      ].join("\n");
    }
  }
  const view = { tools, deferred, systemPrompt };
  cache.set(state, view);
  return view;
}

function insertSorted(tools: McpTool[], tool: McpTool): void {
  const at = tools.findIndex((t) => t.name === tool.name);
  // A registry tool that took the reserved name yields to the built-in one.
  if (at !== -1) tools.splice(at, 1);
  const i = tools.findIndex((t) => compareName(t.name, tool.name) > 0);
  tools.splice(i === -1 ? tools.length : i, 0, tool);
}
