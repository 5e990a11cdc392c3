import {
  MAX_SEARCH_LIMIT,
  type ModelView,
  SEARCH_TOOLS_NAME,
  type SearchAnswer,
  type State,
  searchAnswer,
  type ToolledgerEvent,
} from "@toolledger/core";
import { AdapterError } from "../adapterError.js";
import type { ToolCallResult } from "../connection/extensionConnection.js";

/** S1: `search_tools`' arguments as the core takes them, or what is wrong with them. */
export type SearchToolsArgs =
  | { ok: true; query: string; limit?: number }
  | { ok: false; message: string };

/** S1: reads `{ query, limit? }`; the core judges the values (empty, too long, out of range). */
export function readSearchToolsArgs(args: Record<string, unknown>): SearchToolsArgs {
  const { query, limit } = args;
  const extra = Object.keys(args).filter((k) => k !== "query" && k !== "limit");
  if (
    typeof query !== "string" ||
    (limit !== undefined && typeof limit !== "number") ||
    extra.length > 0
  ) {
    return {
      ok: false,
      message: `${SEARCH_TOOLS_NAME} takes {"query": "what you want to do", "limit": 1-${MAX_SEARCH_LIMIT} (optional)}; got ${JSON.stringify(args)}`,
    };
  }
  return { ok: true, query, ...(limit === undefined ? {} : { limit }) };
}

/** S1: the recorded search of a `SearchTools` decision, and the answer the model gets. */
export function searchToolsResult(
  state: State,
  events: readonly ToolledgerEvent[],
): { answer: SearchAnswer; result: ToolCallResult } {
  const searched = events.find((e) => e.type === "ToolsSearched");
  if (searched?.type !== "ToolsSearched")
    throw new AdapterError("COMMAND_REJECTED", "the core recorded no search");
  const answer = searchAnswer(state, searched);
  const result: ToolCallResult = {
    content: [{ type: "text", text: answer.text }],
    structuredContent: answer.isError
      ? { error: searched.error }
      : { tools: answer.tools, ...(searched.truncated ? { truncated: true } : {}) },
    ...(answer.isError ? { isError: true } : {}),
  };
  return { answer, result };
}

/**
 * S1: the servers summary of search mode's prompt section (each server, its count of deferred
 * tools and topics), for `search_tools`' description: instructions are fixed at the handshake
 * and many clients never show them to the model.
 */
export function searchToolsHint(view: ModelView): string | null {
  const lines = (view.systemPrompt ?? "").split("\n").filter((l) => l.startsWith("- "));
  return lines.length > 0 ? `Servers with deferred tools:\n${lines.join("\n")}` : null;
}
