import { classifyTool } from "../deferral/classifyTool.js";
import type { McpTool } from "../events/events.js";
import { hget } from "../fold/hashDict.js";
import type { RegisteredTool, State } from "../fold/state.js";
import { DEFAULT_SEARCH_LIMIT, MAX_QUERY_LENGTH, MAX_SEARCH_LIMIT } from "./searchTools.js";
import { serverIndex } from "./serverIndex.js";

export const SEARCH_TOOLS_NAME = "search_tools";

/** S1: the built-in search over the deferred tools (always loaded, see ALWAYS_LOAD_META). */
export const SEARCH_TOOLS_TOOL: McpTool = Object.freeze({
  name: SEARCH_TOOLS_NAME,
  description: `Find deferred tools by what you want to do. Returns up to \`limit\` (default ${DEFAULT_SEARCH_LIMIT}) exact tool names, best first, with one line each; load the ones you need with enable_tools. Write the task in plain words ("post a message to slack"), or /regex/ for a case-insensitive regular expression over tool names, descriptions and arguments.`,
  inputSchema: {
    type: "object",
    properties: {
      query: {
        type: "string",
        minLength: 1,
        maxLength: MAX_QUERY_LENGTH,
        description: "What you want to do, in plain words, or /regex/.",
      },
      limit: {
        type: "integer",
        minimum: 1,
        maximum: MAX_SEARCH_LIMIT,
        description: `How many tools to return (default ${DEFAULT_SEARCH_LIMIT}).`,
      },
    },
    required: ["query"],
    additionalProperties: false,
  },
  _meta: Object.freeze({ "anthropic/alwaysLoad": true }),
});

/**
 * S1: the system-prompt section of search mode: not every name, but each server that has
 * deferred tools, its count, and a one-line summary (its tools' commonest topic words), so the
 * model knows what to search for. `deferredByOwner`: deferred tools per extension key.
 */
export function searchPrompt(
  state: State,
  deferredByOwner: ReadonlyMap<string, number>,
): string | null {
  if (deferredByOwner.size === 0) return null;
  const keys = [...deferredByOwner.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let total = 0;
  const lines: string[] = [];
  for (const key of keys) {
    const count = deferredByOwner.get(key)!;
    total += count;
    const ext = hget(state.extensions, key);
    const shown = ext ? approvedTools(state, ext.tools) : [];
    const topics = shown.length > 0 ? serverIndex(shown).topics : [];
    lines.push(
      `- ${key}: ${count} tool${count === 1 ? "" : "s"}${topics.length > 0 ? ` (${topics.join(", ")})` : ""}`,
    );
  }
  return [
    "## Deferred tools",
    `${total} tool${total === 1 ? " is" : "s are"} available from ${keys.length} server${keys.length === 1 ? "" : "s"} but not loaded. Call \`${SEARCH_TOOLS_NAME}\` with what you want to do to find them, then \`enable_tools\` with the exact names it returns:`,
    ...lines,
  ].join("\n");
}

/**
 * P2: the tools whose words may reach the model: all of them (the memoised list itself) unless
 * some await approval, whose unapproved text must not leak into the summary.
 */
function approvedTools(state: State, tools: readonly RegisteredTool[]): readonly RegisteredTool[] {
  if (!tools.some((t) => classifyTool(state, t).class === "quarantined")) return tools;
  return tools.filter((t) => classifyTool(state, t).class !== "quarantined");
}
