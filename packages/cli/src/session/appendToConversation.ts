import {
  type Command,
  decide,
  type EventStore,
  evolve,
  loadConversationState,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import { CliError } from "../program/cliError.js";
import { newEventId } from "./newIds.js";

/**
 * How many times a decision is made again when the serving process appended in between. Each
 * attempt reads only what was appended since the last (a busy gateway commits every few
 * milliseconds; rereading the whole conversation each time would never catch up).
 */
const RETRIES = 200;

export interface AppendedToConversation {
  events: ToolledgerEvent[];
  /** The conversation's state before the append. */
  before: State;
  /** The conversation stream's version after the append. */
  version: number;
}

/**
 * C3/L2: appends a lifecycle command (Clear, Compact) to a conversation from outside the
 * process that serves it. Decides against the conversation's folded state and appends with the
 * exact expected version; when the serving process appended in between, it folds what was
 * appended and decides again, so neither side's events are lost and each is stored after what
 * it was decided against. The serving process folds the result when it next looks (within its
 * follow interval), or at its next append (whose expected version fails), and tells its client.
 */
export async function appendToConversation(
  store: EventStore,
  conversationId: string,
  command: Extract<Command, { type: "Clear" | "Compact" }>,
  now: () => Date,
): Promise<AppendedToConversation> {
  let { state, version } = await loadConversationState(store, conversationId);
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
  for (let attempt = 0; ; attempt++) {
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
    // What the serving process appended since: its own events, folded on top.
    for (;;) {
      const page = await store.readStream(conversationId, {
        fromPosition: version + 1,
        maxCount: 1000,
      });
      for (const e of page) state = evolve(state, e.event);
      version += page.length;
      if (page.length < 1000) break;
    }
  }
}
