import { type At, accepted, type Decision, type ParsedCommand, v } from "../decide/decision.js";
import type { ToolledgerEvent } from "../events/events.js";
import type { State } from "../fold/state.js";
import { resolveTool } from "../naming/resolveTool.js";
import { checkCall } from "./checkCall.js";

export type CallCommand = Extract<ParsedCommand, { type: "StartCall" | "FinishCall" }>;

/** A conversation's tool calls (C4): each recorded as it starts and as it ends. */
export function decideCalls(state: State, command: CallCommand, at: At): Decision {
  switch (command.type) {
    case "StartCall":
      return decideCall(state, command, at);
    case "FinishCall":
      return accepted([
        {
          type: "ToolCallFinished",
          v,
          ...at,
          callId: command.callId,
          outcome: command.outcome,
          durationMs: command.durationMs,
          reason: command.reason ?? null,
          error: command.error ?? null,
          ...(command.result === undefined ? {} : { result: command.result }),
        },
      ]);
  }
}

/**
 * C4 + R13 + D9: records a call as it arrives. A call the registry refuses (unknown,
 * ambiguous, app-only, hidden, deferred and not enabled) is finished at once as `refused`
 * with its reason; the built-ins (`enable_tools`, and `search_tools` in search mode) always start.
 */
function decideCall(
  state: State,
  command: Extract<ParsedCommand, { type: "StartCall" }>,
  at: At,
): Decision {
  const args = command.arguments === undefined ? {} : { arguments: command.arguments };
  const check = checkCall(
    state,
    command.name,
    command.includeHidden ? { includeHidden: true } : {},
  );
  if (check.ok && check.builtin) {
    return accepted([
      {
        type: "ToolCallStarted",
        v,
        ...at,
        callId: command.callId,
        name: command.name,
        publicName: check.publicName,
        owner: null,
        rawName: null,
        ...args,
      },
    ]);
  }
  // A refused call still names the tool it resolved to (deferred, app-only, hidden), for the audit.
  const resolved = check.ok ? check : resolveTool(state, command.name, { includeHidden: true });
  const started: ToolledgerEvent = {
    type: "ToolCallStarted",
    v,
    ...at,
    callId: command.callId,
    name: command.name,
    publicName: resolved.ok ? resolved.publicName : null,
    owner: resolved.ok ? resolved.extension : null,
    rawName: resolved.ok ? resolved.rawName : null,
    ...args,
  };
  if (check.ok) return accepted([started]);
  // The model is told a hidden tool is unknown (R8); the log says why, for whoever audits it.
  const hidden = check.error.code === "UNKNOWN_TOOL" && !command.includeHidden && resolved.ok;
  const reason = hidden ? "HIDDEN_TOOL" : check.error.code;
  const events: ToolledgerEvent[] = [
    started,
    {
      type: "ToolCallFinished",
      v,
      ...at,
      callId: command.callId,
      // C4: a call to a down extension's tool is unavailable, not refused by the registry.
      outcome: reason === "EXTENSION_UNAVAILABLE" ? "unavailable" : "refused",
      durationMs: 0,
      reason,
      error: check.error.message,
    },
  ];
  return { ok: true, events, refusal: check.error };
}
