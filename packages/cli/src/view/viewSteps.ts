import {
  EVENT_TYPES,
  evolve,
  foldConversation,
  initialState,
  registryStreamOf,
  type State,
  type StoredEvent,
  type ToolledgerEvent,
} from "@toolledger/core";
import { restoreEntry, type ViewEntry, type ViewStream } from "./viewData.js";

/** One step of a session's fold: the event, its stream, and the state right after it. */
export interface ViewStep {
  stream: string;
  entry: ViewEntry;
  state: State;
}

const KNOWN = new Set<string>(EVENT_TYPES);

/** `evolve`, except that a kind this build's core does not know leaves the state as it was. */
export function foldOne(state: State, event: ViewEntry["e"]): State {
  return KNOWN.has(event.type) ? evolve(state, event as ToolledgerEvent) : state;
}

/**
 * The session's fold, step by step, as `replay` folds it: a conversation stream with the
 * registry streams it observes in global order (the core's `foldConversation`, C1); any
 * other stream (a legacy session, a host stream, a JSONL log) alone.
 */
export function* viewSteps(
  streams: readonly ViewStream[],
  tools: readonly unknown[],
): Generator<ViewStep> {
  const [main, ...registries] = streams;
  if (!main) return;
  const entries = new Map<StoredEvent, { stream: string; entry: ViewEntry }>();
  const stored = (stream: string, raw: ViewEntry): StoredEvent => {
    const entry = restoreEntry(raw, tools);
    const s: StoredEvent = {
      streamId: stream,
      streamPosition: entry.p,
      globalPosition: entry.g,
      eventId: "",
      event: entry.e as ToolledgerEvent,
      metadata: {},
      recordedAt: entry.t ?? "",
    };
    entries.set(s, { stream, entry });
    return s;
  };
  const first = main.events[0];
  if (first !== undefined && registryStreamOf(stored(main.id, first)) !== null) {
    entries.clear();
    const conversation = main.events.map((e) => stored(main.id, e));
    const byId = new Map(registries.map((r) => [r.id, r.events.map((e) => stored(r.id, e))]));
    for (const step of foldConversation(conversation, byId)) {
      const source = entries.get(step.stored)!;
      entries.delete(step.stored);
      yield { ...source, state: step.state };
    }
    return;
  }
  let state = initialState();
  for (const raw of main.events) {
    const entry = restoreEntry(raw, tools);
    state = foldOne(state, entry.e);
    yield { stream: main.id, entry, state };
  }
}
