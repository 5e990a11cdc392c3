import { randomUUID } from "node:crypto";
import {
  type Command,
  type Decision,
  downExtension,
  ENABLE_TOOLS_NAME,
  SEARCH_TOOLS_NAME,
  type ToolCallStarted,
} from "@toolledger/core";
import { AdapterError } from "../adapterError.js";
import type { ToolCallResult } from "../connection/extensionConnection.js";
import { capturePayload } from "../redaction/capturePayload.js";
import { callEnableTools } from "./callEnableTools.js";
import { callSearchTools } from "./callSearchTools.js";
import type { CallToolOptions, CallToolOutcome } from "./callToolTypes.js";
import type { ConversationParts } from "./conversationParts.js";
import { commandRejected } from "./enableTools.js";
import { isCreateTaskResult } from "./isCreateTaskResult.js";
import { errorText, recordFinish, recordThrown } from "./recordFinish.js";
import { unavailableAdvice } from "./unavailableAdvice.js";

/**
 * C4: calls a tool by its public name and records the call. The core resolves it (R13)
 * and refuses app-only, hidden, unknown and deferred-not-enabled tools (D9) as values;
 * `enable_tools` (deferral on) is answered here; anything else goes to the owner's server
 * with the raw name. Timeouts, cancellation and lost connections are recorded, then
 * thrown as AdapterError.
 */
export async function callTool(
  c: ConversationParts,
  name: string,
  args: Record<string, unknown>,
  options: CallToolOptions,
): Promise<CallToolOutcome> {
  const host = c.host;
  // A tool of a server that is still starting is waited for, not refused as unknown.
  // S1: a search looks at every server, so it waits for the starting ones as a first tools/list does.
  if (name === SEARCH_TOOLS_NAME && host.starting) await host.untilListed();
  else if (name !== ENABLE_TOOLS_NAME && host.starting)
    await host.untilStartedFor([name], options.timeoutMs ?? host.options.callTimeoutMs);
  const callId = options.callId ?? randomUUID();
  const redactor = host.redactor;
  const behind = options.recordFinishAfterAnswer === true;
  const startCall = (): Command => ({
    type: "StartCall",
    callId,
    name,
    ...(c.payloads ? { arguments: capturePayload(args, redactor, c.payloads) } : {}),
    ...(options.includeHidden ? { includeHidden: true } : {}),
  });
  const decision = !behind
    ? await c.writer.run(startCall)
    : c.durability === "write-ahead"
      ? // L1: stored before the call goes upstream, in a group commit with the calls beside it.
        await c.writer
          .writeAhead(startCall, {
            bounded: true,
            waitMs: c.writer.aheadWaitMs,
            late: notMade(callId, c.writer.aheadWaitMs),
          })
          .catch((error: unknown) => {
            throw (error as AdapterError).code === "APPEND_REJECTED"
              ? new AdapterError(
                  "APPEND_REJECTED",
                  `${name} was not called: its record could not be stored first (L1): ${(error as Error).message}`,
                  { cause: error },
                )
              : error;
          })
      : // Relaxed: decided within this turn when nothing is queued before it, written behind.
        (c.writer.writeBehindNow(startCall, { bounded: true }) ??
        (await c.writer.writeBehind(startCall, { bounded: true })));
  if (!decision.ok) throw commandRejected(decision.error);
  const start = decision.events[0];
  if (start?.type !== "ToolCallStarted")
    throw new AdapterError("COMMAND_REJECTED", "the core recorded no call start");
  if (decision.refusal) {
    const refusal = decision.refusal;
    if (refusal.code !== "EXTENSION_UNAVAILABLE") return { ok: false, error: refusal };
    // Down, and why, from the log; what happens next, from the host (issue 10).
    const key = downExtension(c.state(), name, options)?.key;
    const status = host.extensions().find((e) => e.key === key);
    return {
      ok: false,
      error: { ...refusal, message: `${refusal.message}. ${unavailableAdvice(status)}` },
    };
  }
  const running = c.running;
  running.ids.add(callId);
  try {
    return await callStarted(c, start, callId, args, options, behind);
  } finally {
    running.ids.delete(callId);
    if (running.ids.size === 0) running.onIdle?.();
  }
}

/**
 * L1: the finish of a call whose start the store took too late to make it: refused, unmade
 * (a start decided as a refusal already carries its finish).
 */
function notMade(callId: string, waitMs: number): (decision: Decision) => Command | null {
  return (decision) =>
    decision.ok && decision.refusal === undefined
      ? {
          type: "FinishCall",
          callId,
          outcome: "refused",
          durationMs: 0,
          reason: "APPEND_REJECTED",
          error: `not made: the event store did not store the call's start within ${waitMs} ms`,
        }
      : null;
}

/** The call after its start was decided: to its server (or `enable_tools`), then its finish. */
async function callStarted(
  c: ConversationParts,
  start: ToolCallStarted,
  callId: string,
  args: Record<string, unknown>,
  options: CallToolOptions,
  behind: boolean,
): Promise<CallToolOutcome> {
  const host = c.host;
  const redactor = host.redactor;
  if (start.publicName === ENABLE_TOOLS_NAME && start.owner === null)
    return callEnableTools(c, callId, args, behind);
  if (start.publicName === SEARCH_TOOLS_NAME && start.owner === null)
    return callSearchTools(c, callId, args, behind);
  const owner = start.owner!;
  const rawName = start.rawName!;
  const t0 = performance.now();
  let result: ToolCallResult;
  const starting = options.onStart?.(owner);
  if (starting) await starting;
  try {
    result = await host.callUpstream(owner, rawName, args, {
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onprogress ? { onprogress: options.onprogress } : {}),
      ...(options.meta ? { meta: options.meta } : {}),
      ...(options.upstreamTask ? { task: options.upstreamTask } : {}),
      ...(options.onResult && !options.upstreamTask ? { onResult: options.onResult } : {}),
    });
  } catch (error) {
    throw await recordThrown(c, callId, error, t0, behind);
  }
  // C6: the server made a task; the call ends when the task does.
  if (options.upstreamTask && isCreateTaskResult(result))
    return { ok: true, publicName: start.publicName!, extension: owner, rawName, result };
  const finished = recordFinish(
    c,
    callId,
    result.isError ? "tool_error" : "ok",
    performance.now() - t0,
    {
      ...(result.isError ? { error: errorText(result, redactor) } : {}),
      ...(c.payloads ? { result: capturePayload(result, redactor, c.payloads) } : {}),
    },
    // C4: written behind, the finish is decided once the answer has gone out.
    behind ? "afterAnswer" : false,
  );
  // It never throws (a failure to record goes to the conversation's errors).
  if (!behind) await finished;
  return { ok: true, publicName: start.publicName!, extension: owner, rawName, result };
}
