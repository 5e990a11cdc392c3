import type { EventStore, StoredEvent } from "./eventStore.js";
import { evolve } from "./evolve.js";
import { initialState, type State, type StateOptions, withRegistry } from "./state.js";

/** One event of a conversation's fold and the state right after it. */
export interface FoldStep {
  stored: StoredEvent;
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

/** The registry stream a conversation stream observes, read from its first event; null for a legacy session. */
export function registryStreamOf(firstEvent: StoredEvent | undefined): string | null {
  const e = firstEvent?.event;
  return e?.type === "ConversationStarted" ? e.registryStream : null;
}

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
  let own = initialState(options);
  if (registryStreamOf(conversation[0]) === null) {
    for (const stored of conversation) {
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
  let events: readonly StoredEvent[] = [];
  let next = 0;
  let closed = false;
  for (const stored of conversation) {
    const e = stored.event;
    const opens = e.type === "ConversationStarted" || e.type === "ConversationResumed";
    if (opens && e.registryStream !== registryId) {
      const catchUp = registryId !== null;
      registryId = e.registryStream;
      registry = initialState(options);
      events = registries.get(registryId) ?? [];
      next = 0;
      for (; next < events.length && events[next]!.globalPosition < stored.globalPosition; next++) {
        registry = evolve(registry, events[next]!.event);
        yield {
          stored: events[next]!,
          state: compose(own, registry),
          source: "registry",
          ...(catchUp ? { catchUp: true } : {}),
        };
      }
    } else {
      for (; next < events.length && events[next]!.globalPosition < stored.globalPosition; next++) {
        registry = evolve(registry, events[next]!.event);
        yield { stored: events[next]!, state: compose(own, registry), source: "registry" };
      }
    }
    own = evolve(own, e);
    closed = e.type === "ConversationClosed";
    yield { stored, state: compose(own, registry), source: "conversation" };
  }
  if (!closed) {
    for (; next < events.length; next++) {
      registry = evolve(registry, events[next]!.event);
      yield { stored: events[next]!, state: compose(own, registry), source: "registry" };
    }
  }
  return compose(own, registry);
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
