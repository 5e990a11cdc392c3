import type { CallOutcome } from "@toolledger/core";
import type { ToolCall, ToolResult } from "./gooseContent.js";

/** agents/tool_execution.rs: what goose answers for a call the user declined. */
export const DECLINED_RESPONSE =
  "The user has declined to run this tool. DO NOT attempt to call this tool again. If there are no alternative methods to proceed, clearly explain the situation and STOP.";
/** agents/tool_execution.rs: what goose answers for a call chat mode skipped (its start). */
export const CHAT_MODE_SKIPPED_PREFIX = "Let the user know the tool call was skipped in";

export interface MappedOutcome {
  outcome: CallOutcome;
  /** C4: the refusal code, or the class of failure. */
  reason: string | null;
  error: string | null;
}

const ERROR_TEXT_LIMIT = 1000;

/**
 * goose's outcome of one tool request and its response, in C4's terms:
 * - success, `isError` false: `ok`;
 * - success with `isError` true (the tool failed): `tool_error`;
 * - success whose text is goose's declined answer: `refused`, DECLINED_BY_USER; chat mode's
 *   skip: `refused`, SKIPPED_IN_CHAT_MODE;
 * - `status: "error"` (goose could not dispatch it: `<code>: <message>` from ErrorData's
 *   Display): unknown tools `refused` UNKNOWN_TOOL, a closed transport `unavailable`,
 *   cancellation `cancelled`, time-outs `timeout`, anything else `tool_error` DISPATCH_ERROR;
 * - the model's malformed call (the request itself is `status: "error"`): `refused`,
 *   MALFORMED_CALL, whatever goose answered.
 */
export function mapOutcome(call: ToolCall, result: ToolResult): MappedOutcome {
  if (!call.ok) return { outcome: "refused", reason: "MALFORMED_CALL", error: cut(call.error) };
  if (result.ok) {
    const text = result.text.replace(/\s+/g, " ").trim();
    if (text === DECLINED_RESPONSE)
      return { outcome: "refused", reason: "DECLINED_BY_USER", error: result.text };
    if (text.startsWith(CHAT_MODE_SKIPPED_PREFIX))
      return { outcome: "refused", reason: "SKIPPED_IN_CHAT_MODE", error: cut(result.text) };
    if (result.isError) return { outcome: "tool_error", reason: null, error: cut(result.text) };
    return { outcome: "ok", reason: null, error: null };
  }
  const e = result.error;
  if (/not found|unknown tool|no tool named|does not exist/i.test(e))
    return { outcome: "refused", reason: "UNKNOWN_TOOL", error: cut(e) };
  if (/transport closed|connection closed|disconnected|broken pipe|not connected/i.test(e))
    return { outcome: "unavailable", reason: "EXTENSION_UNAVAILABLE", error: cut(e) };
  if (/cancel/i.test(e)) return { outcome: "cancelled", reason: null, error: cut(e) };
  if (/timed out|timeout|deadline/i.test(e))
    return { outcome: "timeout", reason: null, error: cut(e) };
  return { outcome: "tool_error", reason: "DISPATCH_ERROR", error: cut(e) };
}

function cut(text: string): string {
  return text.length <= ERROR_TEXT_LIMIT
    ? text
    : `${text.slice(0, ERROR_TEXT_LIMIT)}… (${text.length} chars)`;
}
