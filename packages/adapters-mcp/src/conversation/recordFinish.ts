import type { CallOutcome, Command } from "@toolledger/core";
import { AdapterError, asAdapterError } from "../adapterError.js";
import type { ToolCallResult } from "../connection/extensionConnection.js";
import type { Redactor } from "../redaction/redactor.js";
import type { ConversationParts } from "./conversationParts.js";
import { commandRejected } from "./enableTools.js";

/**
 * C4: records a call's end: appended now, or (`behind`) written behind with its start,
 * decided now or (`"afterAnswer"`) once the answer has gone out (after this turn's I/O, and
 * before anything else this conversation decides). A failure to record does not take the
 * outcome from the caller: it goes to `errors` (written behind, the store's refusals are
 * held and retried first).
 */
export async function recordFinish(
  c: ConversationParts,
  callId: string,
  outcome: CallOutcome,
  durationMs: number,
  extra: { reason?: string; error?: string; result?: unknown },
  behind: boolean | "afterAnswer",
): Promise<void> {
  const finishCall = (): Command => ({
    type: "FinishCall",
    callId,
    outcome,
    durationMs: Math.round(durationMs * 1000) / 1000,
    ...extra,
  });
  try {
    const decision =
      behind === "afterAnswer"
        ? await c.writer.writeBehindAfterIo(finishCall)
        : behind
          ? await c.writer.writeBehind(finishCall)
          : await c.writer.run(finishCall);
    if (!decision.ok) throw commandRejected(decision.error);
  } catch (error) {
    c.errors.next(
      new AdapterError(
        "APPEND_REJECTED",
        `conversation ${c.id}: the outcome of call ${callId} (${outcome}) could not be recorded: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      ),
    );
  }
}

/**
 * C4: records the end of a call that threw (its outcome class, and its message redacted) and
 * returns the error as an AdapterError, for the caller to throw.
 */
export async function recordThrown(
  c: ConversationParts,
  callId: string,
  error: unknown,
  startedAt: number,
  behind: boolean,
): Promise<AdapterError> {
  const e = asAdapterError(error);
  await recordFinish(
    c,
    callId,
    outcomeOf(e),
    performance.now() - startedAt,
    { error: c.host.redactor.redact(e.message) },
    behind,
  );
  return e;
}

/** C4: the outcome class of a call that threw. */
export function outcomeOf(e: AdapterError): CallOutcome {
  switch (e.code) {
    case "REQUEST_TIMEOUT":
      return "timeout";
    case "CANCELLED":
      return "cancelled";
    case "MESSAGE_TOO_LARGE":
      // The tool ran and answered; its answer was too large to pass on.
      return "tool_error";
    case "PROTOCOL_ERROR":
      // A JSON-RPC error from a live server is the tool's answer; anything else lost the call.
      return e.serverAnswered ? "tool_error" : "unavailable";
    default:
      return "unavailable";
  }
}

/** The text of an `isError` result, short and secret-free. */
export function errorText(result: ToolCallResult, redactor: Redactor): string {
  const content = (result as { content?: unknown }).content;
  const text = Array.isArray(content)
    ? content
        .map((c) => (c && typeof c === "object" && "text" in c ? String(c.text) : ""))
        .filter((t) => t !== "")
        .join("\n")
    : "";
  return redactor.head(text || "the tool reported an error", 500);
}
