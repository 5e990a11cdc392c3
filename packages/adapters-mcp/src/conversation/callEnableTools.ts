import { ENABLE_TOOLS_NAME } from "@toolledger/core";
import type { ToolCallResult } from "../connection/extensionConnection.js";
import type { CallToolOutcome } from "./callToolTypes.js";
import type { ConversationParts } from "./conversationParts.js";
import { enableForModel } from "./enableTools.js";
import { recordFinish, recordThrown } from "./recordFinish.js";

/**
 * D5 as a tool call: the model's `enable_tools` (deferral on), answered by the conversation
 * itself (no server owns it), its arguments checked, its outcome a tool result.
 */
export async function callEnableTools(
  c: ConversationParts,
  callId: string,
  args: Record<string, unknown>,
  behind: boolean,
): Promise<CallToolOutcome> {
  const t0 = performance.now();
  const names = args.names;
  if (!Array.isArray(names) || !names.every((n) => typeof n === "string")) {
    const message = `${ENABLE_TOOLS_NAME} takes {"names": [exact tool names]}; got ${JSON.stringify(args)}`;
    await recordFinish(
      c,
      callId,
      "refused",
      performance.now() - t0,
      { reason: "INVALID_ARGUMENTS", error: c.host.redactor.redact(message) },
      behind,
    );
    return {
      ok: false,
      error: { code: "INVALID_ARGUMENTS", name: ENABLE_TOOLS_NAME, message, suggestions: [] },
    };
  }
  let outcome: Awaited<ReturnType<typeof enableForModel>>;
  try {
    outcome = await enableForModel(c, callId, names);
  } catch (error) {
    // The enable could not be recorded (the store refused it): the call still gets its end (C4).
    await recordThrown(c, callId, error, t0, behind);
    throw error;
  }
  const text = outcome.ok
    ? `Enabled ${names.join(", ")}. Their definitions are loaded; call them by these names.`
    : outcome.error.message;
  const result: ToolCallResult = outcome.ok
    ? { content: [{ type: "text", text }], structuredContent: { enabled: names } }
    : {
        content: [{ type: "text", text }],
        isError: true,
        structuredContent: { error: outcome.error },
      };
  await recordFinish(
    c,
    callId,
    outcome.ok ? "ok" : "tool_error",
    performance.now() - t0,
    outcome.ok ? {} : { error: text },
    behind,
  );
  return {
    ok: true,
    publicName: ENABLE_TOOLS_NAME,
    extension: "",
    rawName: ENABLE_TOOLS_NAME,
    result,
  };
}
