import { decideTasks } from "../calls/decideTasks.js";
import {
  type At,
  accepted,
  type Decision,
  type ParsedCommand,
  rejected,
  v,
} from "../decide/decision.js";
import type { ToolledgerEvent } from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import type { State } from "../fold/state.js";

export type ConversationCommand = Extract<
  ParsedCommand,
  { type: "StartConversation" | "ResumeConversation" | "CloseConversation" | "EndLostConversation" }
>;

/** A conversation's lifecycle (C3, C5): started once, resumed, closed with a marker. */
export function decideConversation(state: State, command: ConversationCommand, at: At): Decision {
  switch (command.type) {
    case "StartConversation":
    case "ResumeConversation": {
      if (command.type === "StartConversation" && state.conversation !== null) {
        return rejected(
          "CONVERSATION_EXISTS",
          `this stream already holds a conversation (started ${state.conversation.startedAt ?? "earlier"}); resume it instead of starting it again`,
        );
      }
      return accepted([
        {
          type:
            command.type === "StartConversation" ? "ConversationStarted" : "ConversationResumed",
          v,
          ...at,
          registryStream: command.registryStream,
          client: command.client ?? null,
          protocolVersion: command.protocolVersion ?? null,
          transport: command.transport ?? null,
          hostname: command.hostname ?? null,
        },
      ]);
    }
    case "CloseConversation":
      // Closing twice records nothing the second time.
      if (state.conversation?.status === "closed") return accepted([]);
      return accepted([{ type: "ConversationClosed", v, ...at, reason: command.reason }]);
    case "EndLostConversation":
      return endLost(state, command, at);
  }
}

/**
 * L3: a conversation whose gateway is gone, ended for it: each open task `lost` (C6: a task its
 * server ran finishes its call `unknown`), each call still without a finish `unknown`, then
 * `ConversationClosed` as `lost` with when the gateway was last seen. Already closed: nothing.
 */
function endLost(
  state: State,
  command: Extract<ConversationCommand, { type: "EndLostConversation" }>,
  at: At,
): Decision {
  if (state.conversation === null)
    return rejected("INVALID_COMMAND", "EndLostConversation: this stream holds no conversation");
  if (state.conversation.status === "closed") return accepted([]);
  const why = `its gateway is gone (${command.gone}; last seen ${command.lastSeen})`;
  const events: ToolledgerEvent[] = [];
  let s = state;
  for (const task of state.tasks.open) {
    const d = decideTasks(
      s,
      {
        type: "ChangeTaskStatus",
        taskId: task.taskId,
        status: "lost",
        message: `the gateway that ran it stopped before it ended; its outcome is unknown (${why})`,
      },
      at,
    );
    if (!d.ok) continue;
    for (const e of d.events) s = evolve(s, e);
    events.push(...d.events);
  }
  for (const call of s.calls.inFlight) {
    const started = call.at === null ? Number.NaN : Date.parse(call.at);
    const seen = Date.parse(command.lastSeen);
    events.push({
      type: "ToolCallFinished",
      v,
      ...at,
      callId: call.callId,
      outcome: "unknown",
      // Up to the last sign of life: the call ran at least that long, or ended unseen before.
      durationMs:
        Number.isFinite(started) && Number.isFinite(seen) ? Math.max(0, seen - started) : 0,
      reason: "LOST",
      error: `${why}: the call may have run; its outcome was never recorded`,
    });
  }
  events.push({
    type: "ConversationClosed",
    v,
    ...at,
    reason: "lost",
    lastSeen: command.lastSeen,
  });
  return accepted(events);
}
