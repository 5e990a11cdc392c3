import type { StoredEvent } from "../store/eventStore.js";
import { evolve } from "./evolve.js";
import { initialState, type State, type StateOptions, withRegistry } from "./state.js";

/** What folding a conversation's log needs of a stored event. */
export type FoldedEvent = Pick<StoredEvent, "streamId" | "event">;

/** One event of a conversation's fold and the state right after it. */
export interface FoldStep<T extends FoldedEvent = StoredEvent> {
  stored: T;
  /** The conversation's state after this event (registry and conversation parts). */
  state: State;
  /** Which stream the event came from. */
  source: "conversation" | "registry";
  /**
   * True for a registry event folded when a resume switched to another registry stream: it
   * is earlier in global order than the step before it (the conversation saw its effect only
   * from the resume on).
   */
  catchUp?: boolean;
}

/**
 * C1: folds a conversation's log that is already in fold order (as `orderConversation` gives
 * it, or as `toolledger export` wrote it), one step per event. `conversationStream` names the
 * conversation's own stream; every other stream is a registry stream. The state at any point
 * is the conversation's own events folded, composed (`withRegistry`) with the registry stream
 * it observes at that point folded from its start: a registry event of another stream than the
 * one folded so far, or an opening that names another, starts that stream's fold afresh
 * (events of a new stream before the opening are its catch-up). With `conversationStream`
 * null the log is one stream (a legacy session, a registry stream), folded alone.
 */
export function* foldOrderedConversation<T extends FoldedEvent>(
  ordered: Iterable<T>,
  conversationStream: string | null,
  options: StateOptions = {},
): Generator<FoldStep<T>, State, undefined> {
  let own = initialState(options);
  if (conversationStream === null) {
    for (const stored of ordered) {
      own = evolve(own, stored.event);
      yield { stored, state: own, source: "conversation" };
    }
    return own;
  }
  // Composed once per change, so a step that changed nothing keeps the same state object (E2).
  let composed: State | null = null;
  let composedOwn: State | null = null;
  let composedRegistry: State | null = null;
  const compose = (o: State, r: State): State => {
    if (composed === null || o !== composedOwn || r !== composedRegistry) {
      composed = withRegistry(o, r);
      composedOwn = o;
      composedRegistry = r;
    }
    return composed;
  };
  let registryId: string | null = null;
  let registry = initialState(options);
  let catchingUp = false;
  for (const stored of ordered) {
    const e = stored.event;
    if (stored.streamId === conversationStream) {
      const opens = e.type === "ConversationStarted" || e.type === "ConversationResumed";
      if (opens && e.registryStream !== registryId) {
        registryId = e.registryStream;
        registry = initialState(options);
      }
      catchingUp = false;
      own = evolve(own, e);
      yield { stored, state: compose(own, registry), source: "conversation" };
      continue;
    }
    if (stored.streamId !== registryId) {
      // A resume's catch-up when another registry stream was observed before.
      catchingUp = registryId !== null;
      registryId = stored.streamId;
      registry = initialState(options);
    }
    registry = evolve(registry, e);
    yield {
      stored,
      state: compose(own, registry),
      source: "registry",
      ...(catchingUp ? { catchUp: true } : {}),
    };
  }
  return compose(own, registry);
}
