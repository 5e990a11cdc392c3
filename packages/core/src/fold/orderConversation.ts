import type { StoredEvent } from "../store/eventStore.js";

/** What ordering a conversation's log needs of a stored event. */
export type OrderedEvent = Pick<StoredEvent, "streamId" | "globalPosition" | "event">;

/** The registry stream a conversation stream observes, read from its first event; null for a legacy session. */
export function registryStreamOf(
  firstEvent: Pick<StoredEvent, "event"> | undefined,
): string | null {
  const e = firstEvent?.event;
  return e?.type === "ConversationStarted" ? e.registryStream : null;
}

/**
 * C1: a conversation's log in fold order, without folding it: each conversation event
 * preceded by the events of the registry stream it observes (named by its latest
 * `ConversationStarted` / `ConversationResumed`) that came before it in global order. A resume
 * on another registry stream brings that stream's earlier events right before it (the
 * catch-up); after `ConversationClosed` no registry event follows. A stream that does not
 * start with `ConversationStarted` (a legacy session, or a registry stream) is its own order.
 * `foldOrderedConversation` folds this order; `foldConversation` is the two together.
 */
export function* orderConversation<T extends OrderedEvent>(
  conversation: readonly T[],
  registries: ReadonlyMap<string, readonly T[]>,
): Generator<T, void, undefined> {
  if (registryStreamOf(conversation[0]) === null) {
    yield* conversation;
    return;
  }
  let registryId: string | null = null;
  let events: readonly T[] = [];
  let next = 0;
  let closed = false;
  for (const stored of conversation) {
    const e = stored.event;
    const opens = e.type === "ConversationStarted" || e.type === "ConversationResumed";
    if (opens && e.registryStream !== registryId) {
      registryId = e.registryStream;
      events = registries.get(registryId) ?? [];
      next = 0;
    }
    for (; next < events.length && events[next]!.globalPosition < stored.globalPosition; next++)
      yield events[next]!;
    yield stored;
    closed = e.type === "ConversationClosed";
  }
  if (!closed) for (; next < events.length; next++) yield events[next]!;
}
