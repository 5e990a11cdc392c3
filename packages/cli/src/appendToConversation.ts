import {
  type Command,
  decide,
  type EventStore,
  loadConversationState,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import { CliError } from "./cliError.js";
import { newEventId } from "./newIds.js";

/** How many times a decision is made again when the serving process appended in between. */
const RETRIES = 10;

export interface AppendedToConversation {
  events: ToolledgerEvent[];
  /** The conversation's state before the append. */
  before: State;
  /** The conversation stream's version after the append. */
  version: number;
}

/**
 * C3: appends a lifecycle command (Clear, Compact) to a conversation from outside the process
 * that serves it. Decides against the conversation's folded state and appends with the exact
 * expected version; when the serving process appended in between, it reads again and decides
 * again, so neither side's events are lost. The serving process folds the result when it
 * next looks (within its follow interval) and tells its client.
 */
export async function appendToConversation(
  store: EventStore,
  conversationId: string,
  command: Extract<Command, { type: "Clear" | "Compact" }>,
  now: () => Date,
): Promise<AppendedToConversation> {
  for (let attempt = 0; ; attempt++) {
    const { state, version } = await loadConversationState(store, conversationId);
    if (version === 0) {
      throw new CliError("notFound", `no conversation ${JSON.stringify(conversationId)}`, {
        hint: "list conversations with `toolledger sessions`",
      });
    }
    if (state.conversation === null) {
      throw new CliError(
        "badInput",
        `${conversationId} is not a conversation (a registry stream, or a session written before conversations existed)`,
        { hint: "give a conversation id (conv-…) from `toolledger sessions`" },
      );
    }
    const decision = decide(state, { ...command, at: now().toISOString() });
    if (!decision.ok) throw new CliError("conflict", decision.error.message);
    const result = await store.append(
      conversationId,
      decision.events.map((event) => ({ eventId: newEventId(), event })),
      version,
    );
    if (result.ok) {
      return { events: decision.events, before: state, version: result.nextExpectedVersion };
    }
    if (result.error.code !== "VERSION_CONFLICT" || attempt >= RETRIES) {
      throw new CliError(
        "conflict",
        `could not append ${command.type} to ${conversationId}: ${result.error.code}${"message" in result.error ? `: ${result.error.message}` : ""}`,
        { hint: "the conversation is busy; try again" },
      );
    }
  }
}
