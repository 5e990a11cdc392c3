import type { EventStore, StoredEvent } from "../store/eventStore.js";
import { type FoldStep, foldOrderedConversation } from "./foldOrderedConversation.js";
import { orderConversation, registryStreamOf } from "./orderConversation.js";
import type { State, StateOptions } from "./state.js";

export type { FoldStep } from "./foldOrderedConversation.js";
export { registryStreamOf } from "./orderConversation.js";

/**
 * C1: a conversation's fold, one step per event in global order. The state at any point is
 * the conversation stream folded with the registry stream it observes at that point (named
 * by its latest `ConversationStarted` / `ConversationResumed`), composed with `withRegistry`.
 * Registry events before the conversation started are steps too (what its model saw was
 * built by them); a resume on another host's registry stream folds that stream up to the
 * resume as `catchUp` steps, whose states the conversation never showed (they are out of
 * global order, right before the resume step). After `ConversationClosed` the fold
 * stops. A stream that does not start with `ConversationStarted` (a legacy session, or a
 * registry stream) is folded alone.
 */
export function* foldConversation(
  conversation: readonly StoredEvent[],
  registries: ReadonlyMap<string, readonly StoredEvent[]>,
  options: StateOptions = {},
): Generator<FoldStep, State, undefined> {
  const stream = registryStreamOf(conversation[0]) === null ? null : conversation[0]!.streamId;
  return yield* foldOrderedConversation(
    orderConversation(conversation, registries),
    stream,
    options,
  );
}

/** Every event of a stream, read in pages. */
export async function readWholeStream(store: EventStore, streamId: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for (;;) {
    const page = await store.readStream(streamId, { fromPosition: out.length + 1, maxCount: 1000 });
    out.push(...page);
    if (page.length < 1000) return out;
  }
}

/** A conversation stream with the registry streams it observes, as read from a store. */
export interface ConversationLog {
  streamId: string;
  events: StoredEvent[];
  /** Registry stream id → its events (empty for a legacy session). */
  registries: Map<string, StoredEvent[]>;
}

/** Reads a conversation (or legacy session) stream and every registry stream it names. */
export async function readConversationLog(
  store: EventStore,
  streamId: string,
): Promise<ConversationLog> {
  const events = await readWholeStream(store, streamId);
  const registries = new Map<string, StoredEvent[]>();
  if (registryStreamOf(events[0]) !== null) {
    for (const { event } of events) {
      if (
        (event.type === "ConversationStarted" || event.type === "ConversationResumed") &&
        !registries.has(event.registryStream)
      ) {
        registries.set(event.registryStream, await readWholeStream(store, event.registryStream));
      }
    }
  }
  return { streamId, events, registries };
}

/** C1: a conversation's current state (its model's view now), folded from a store. */
export async function loadConversationState(
  store: EventStore,
  streamId: string,
  options: StateOptions = {},
): Promise<{ state: State; version: number }> {
  const log = await readConversationLog(store, streamId);
  const steps = foldConversation(log.events, log.registries, options);
  let result = steps.next();
  while (!result.done) result = steps.next();
  return { state: result.value, version: log.events.length };
}
