import { initialState, type State, type ToolledgerEvent } from "@toolledger/core";
import { foldEntries } from "../session/foldEntries.js";
import type { LogEntry } from "../session/logEntry.js";
import type { Change } from "./change.js";
import { diffStates } from "./diffStates.js";
import { withRenames } from "./withRenames.js";

export type { Change } from "./change.js";

export interface ReplayStep {
  position: number;
  type: ToolledgerEvent["type"];
  /** The stream the event belongs to, in a conversation's log (C1). */
  stream?: string;
  /** Shown instead of the position for a registry event in a conversation's log (`h12`). */
  label?: string;
  /** A registry event a resumed conversation folded to catch up with another host's registry. */
  catchUp?: boolean;
  recordedAt?: string;
  /** The cache version after the event (R11). */
  version: number;
  changes: Change[];
}

/** Folds `entries` one by one, yielding each step with the diff it made and the state after it. */
export function* replaySteps(
  entries: Iterable<LogEntry>,
  from: State = initialState(),
): Generator<{ step: ReplayStep; state: State }> {
  let state = from;
  // Public names each extension's raw tools had when last fetched, so a refetch under a new
  // prefix (an extension re-added with `exposeUnprefixed` toggled) reads as a rename.
  const known = new Map<string, Map<string, string>>();
  for (const { entry, state: next, catchUp } of foldEntries([...entries], from)) {
    const changes = withRenames(diffStates(state, next, entry.event), next, known);
    const step: ReplayStep = {
      position: entry.position,
      type: entry.event.type,
      ...(entry.streamId === undefined ? {} : { stream: entry.streamId }),
      ...(entry.label === undefined ? {} : { label: entry.label }),
      ...(catchUp ? { catchUp } : {}),
      ...(entry.recordedAt === undefined ? {} : { recordedAt: entry.recordedAt }),
      version: next.version,
      changes,
    };
    yield { step, state: next };
    state = next;
  }
}
