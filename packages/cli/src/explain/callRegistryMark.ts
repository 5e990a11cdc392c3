import { classifyTool, evolve, getExtension, initialState, type State } from "@toolledger/core";
import type { LogEntry } from "../session/logEntry.js";
import type { Position } from "./explanation.js";

/**
 * Where a call's tool stood in the registry when the call started: `deferred` (D9: deferred
 * and not enabled; toolledger's gateway refuses such a call, another host may have run it) or
 * `unknown` (no extension had a tool of that name; an imported session's synthesised lists
 * lack the names its host answered "not found").
 */
export type CallRegistryMark = "deferred" | "unknown";

/** A `ToolCallStarted`; the mark reads `name`, `publicName` and `owner` (the view passes undecoded events). */
export type StartedCall = Readonly<Record<string, unknown>>;

/**
 * The mark of one call, from the state just before it: unknown when the recorder resolved no
 * public name (a call without a name, the model's malformed call, is not marked); deferred
 * when its owner's tool of that public name classifies as deferred (D4) at that point.
 */
export function callRegistryMark(before: State, call: StartedCall): CallRegistryMark | null {
  const publicName = typeof call.publicName === "string" ? call.publicName : null;
  if (publicName === null)
    return typeof call.name === "string" && call.name !== "" ? "unknown" : null;
  if (typeof call.owner !== "string") return null;
  const tool = getExtension(before, call.owner)?.tools.find((t) => t.publicName === publicName);
  return tool && classifyTool(before, tool).class === "deferred" ? "deferred" : null;
}

/** One marked call of a log. */
export interface MarkedCall {
  callId: string;
  /** The name as called, and the public name it resolved to (null: unknown). */
  name: string;
  publicName: string | null;
  /** Where it started, as replay and explain cite it. */
  position: Position;
  mark: CallRegistryMark;
}

/** Every call of a session's log whose tool was deferred and not enabled, or unknown, when it started. */
export function markedCalls(entries: readonly LogEntry[]): MarkedCall[] {
  const out: MarkedCall[] = [];
  let state = initialState();
  for (const { event, position, label } of entries) {
    if (event.type === "ToolCallStarted") {
      const mark = callRegistryMark(state, event);
      if (mark !== null)
        out.push({
          callId: event.callId,
          name: event.name,
          publicName: event.publicName ?? null,
          position: label ?? position,
          mark,
        });
    }
    state = evolve(state, event);
  }
  return out;
}
