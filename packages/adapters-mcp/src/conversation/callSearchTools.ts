import { SEARCH_TOOLS_NAME } from "@toolledger/core";
import type { CallToolOutcome } from "./callToolTypes.js";
import type { ConversationParts } from "./conversationParts.js";
import { recordFinish, recordThrown } from "./recordFinish.js";
import { readSearchToolsArgs, searchToolsResult } from "./searchToolsCall.js";

/**
 * S1/S2 as a tool call: the model's `search_tools` (search mode), answered by the conversation
 * itself: the core searches the registry of this moment and records the query and the names
 * (ToolsSearched); the answer is built from that event.
 */
export async function callSearchTools(
  c: ConversationParts,
  callId: string,
  args: Record<string, unknown>,
  behind: boolean,
): Promise<CallToolOutcome> {
  const t0 = performance.now();
  const read = readSearchToolsArgs(args);
  if (!read.ok) {
    await recordFinish(
      c,
      callId,
      "refused",
      performance.now() - t0,
      { reason: "INVALID_ARGUMENTS", error: c.host.redactor.redact(read.message) },
      behind,
    );
    return {
      ok: false,
      error: {
        code: "INVALID_ARGUMENTS",
        name: SEARCH_TOOLS_NAME,
        message: read.message,
        suggestions: [],
      },
    };
  }
  const { query, limit } = read;
  let searchedOn = c.state();
  let answered: ReturnType<typeof searchToolsResult>;
  try {
    const events = await c.writer.execute((state) => {
      searchedOn = state;
      return { type: "SearchTools", callId, query, ...(limit === undefined ? {} : { limit }) };
    });
    answered = searchToolsResult(searchedOn, events);
  } catch (error) {
    // The search could not be recorded (the store refused it): the call still gets its end (C4).
    await recordThrown(c, callId, error, t0, behind);
    throw error;
  }
  const { answer, result } = answered;
  await recordFinish(
    c,
    callId,
    answer.isError ? "tool_error" : "ok",
    performance.now() - t0,
    answer.isError ? { error: answer.text } : {},
    behind,
  );
  return {
    ok: true,
    publicName: SEARCH_TOOLS_NAME,
    extension: "",
    rawName: SEARCH_TOOLS_NAME,
    result,
  };
}
