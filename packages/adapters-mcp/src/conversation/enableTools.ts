import type { CommandError, Decision, EnableError, ToolledgerEvent } from "@toolledger/core";
import { AdapterError } from "../adapterError.js";
import type { EnableDecision } from "./conversationOptions.js";
import type { ConversationParts } from "./conversationParts.js";

export type EnableToolsOutcome = { ok: true; names: string[] } | { ok: false; error: EnableError };

/** D5/D6: validates and records an enable request and its response; the response is the outcome. */
export async function enableTools(
  c: ConversationParts,
  callId: string,
  names: string[],
): Promise<EnableToolsOutcome> {
  await c.host.untilStartedFor(names, c.host.options.callTimeoutMs);
  const decision = await c.writer.run(() => ({ type: "EnableTools", callId, names }));
  // A refusal of the core (a call id already used) is the outcome, as `decide` worded it.
  if (!decision.ok) return refused(decision.error);
  return enableOutcome(
    decision.events.find((e) => e.type === "EnableToolsResponded"),
    names,
  );
}

/** D5, two steps, first: records the model's request and nothing else; the core's refusal is returned. */
export async function requestEnableTools(
  c: ConversationParts,
  callId: string,
  names: string[],
): Promise<Decision> {
  return c.writer.run(() => ({ type: "RequestEnableTools", callId, names }));
}

/** D5: approves or denies a pending request (approval is validated now, against the registry of this moment). */
export async function answerEnableTools(
  c: ConversationParts,
  command:
    | { type: "ApproveEnableTools"; callId: string }
    | { type: "DenyEnableTools"; callId: string; reason: string },
): Promise<EnableToolsOutcome> {
  const names = c.state().pending.find((p) => p.callId === command.callId)?.names ?? [];
  const decision = await c.writer.run(() => command);
  if (!decision.ok) throw commandRejected(decision.error);
  return enableOutcome(decision.events[0], names);
}

/** D5: the model's enable_tools call, through the host's permission layer when it has one. */
export async function enableForModel(
  c: ConversationParts,
  callId: string,
  names: string[],
): Promise<EnableToolsOutcome> {
  const authorize = c.authorizeEnable;
  if (!authorize) return enableTools(c, callId, names);
  const requested = await requestEnableTools(c, callId, names);
  if (!requested.ok) return refused(requested.error);
  let decision: EnableDecision;
  try {
    decision = await authorize({ conversationId: c.id, callId, names: [...names] });
  } catch (error) {
    decision = {
      approve: false,
      reason: `the host's permission check failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  return answerEnableTools(
    c,
    decision.approve
      ? { type: "ApproveEnableTools", callId }
      : { type: "DenyEnableTools", callId, reason: decision.reason || "denied by the host" },
  );
}

/** A core refusal for callers whose API throws it (COMMAND_REJECTED, the code and the core's words). */
export function commandRejected(error: CommandError): AdapterError {
  return new AdapterError("COMMAND_REJECTED", `${error.code}: ${error.message}`);
}

function refused(error: CommandError): EnableToolsOutcome {
  return { ok: false, error: { code: error.code, message: error.message, invalid: [] } };
}

/** What the model is told of an enable (D5): the names on success, else the recorded error. */
function enableOutcome(
  response: ToolledgerEvent | undefined,
  names: readonly string[],
): EnableToolsOutcome {
  if (response?.type !== "EnableToolsResponded")
    throw new AdapterError("COMMAND_REJECTED", "the core decided no enable_tools response");
  return response.ok
    ? { ok: true, names: [...names] }
    : {
        ok: false,
        error: response.error ?? { code: "FAILED", message: "enable_tools failed", invalid: [] },
      };
}
