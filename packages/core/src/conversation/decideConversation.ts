import {
  type At,
  accepted,
  type Decision,
  type ParsedCommand,
  rejected,
  v,
} from "../decider/decision.js";
import type { State } from "../state.js";

export type ConversationCommand = Extract<
  ParsedCommand,
  { type: "StartConversation" | "ResumeConversation" | "CloseConversation" }
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
  }
}
