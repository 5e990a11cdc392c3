import type {
  ConversationClosed,
  ConversationResumed,
  ConversationStarted,
} from "../events/events.js";
import type { State } from "../fold/state.js";
import { update } from "../fold/update.js";

export type ConversationEvent = ConversationStarted | ConversationResumed | ConversationClosed;

/** A conversation's lifecycle (C3, C5): started, resumed, closed. */
export function evolveConversation(state: State, event: ConversationEvent): State {
  switch (event.type) {
    case "ConversationStarted":
    case "ConversationResumed":
      return conversationOpened(state, event);
    case "ConversationClosed":
      return conversationClosed(state, event);
  }
}

/** C3/C5: a conversation starts, or is reopened; either way it is open afterwards. */
function conversationOpened(state: State, e: ConversationStarted | ConversationResumed): State {
  const before = state.conversation;
  const resumed = e.type === "ConversationResumed";
  return update(state, {
    conversation: {
      registryStream: e.registryStream,
      client: e.client ?? before?.client ?? null,
      protocolVersion: e.protocolVersion ?? before?.protocolVersion ?? null,
      transport: e.transport ?? before?.transport ?? null,
      hostname: e.hostname ?? before?.hostname ?? null,
      startedAt: resumed ? (before?.startedAt ?? e.at ?? null) : (e.at ?? null),
      status: "open",
      closedAt: null,
      closedReason: null,
      lastSeen: null,
      resumes: (before?.resumes ?? 0) + (resumed ? 1 : 0),
    },
  });
}

/** C3: the conversation's session ended. A legacy stream gets a minimal record. */
function conversationClosed(state: State, e: ConversationClosed): State {
  const before = state.conversation;
  return update(state, {
    conversation: {
      registryStream: before?.registryStream ?? "",
      client: before?.client ?? null,
      protocolVersion: before?.protocolVersion ?? null,
      transport: before?.transport ?? null,
      hostname: before?.hostname ?? null,
      startedAt: before?.startedAt ?? null,
      status: "closed",
      closedAt: e.at ?? null,
      closedReason: e.reason,
      lastSeen: e.lastSeen ?? null,
      resumes: before?.resumes ?? 0,
    },
  });
}
