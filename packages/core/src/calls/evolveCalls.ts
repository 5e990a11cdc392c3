import type { CallOutcome, ToolCallFinished, ToolCallStarted } from "../events/events.js";
import { hget, hset } from "../fold/hashDict.js";
import {
  CALL_HISTORY_LIMIT,
  type CallRecord,
  type CallSummary,
  IN_FLIGHT_LIMIT,
  NO_CALL_OUTCOMES,
  type State,
  type ToolCallStats,
} from "../fold/state.js";
import { update } from "../fold/update.js";

export type CallEvent = ToolCallStarted | ToolCallFinished;

/** A conversation's tool calls (C4): the bounded summary of what started and how it ended. */
export function evolveCalls(state: State, event: CallEvent): State {
  switch (event.type) {
    case "ToolCallStarted":
      return callStarted(state, event);
    case "ToolCallFinished":
      return callFinished(state, event);
  }
}

/** C4: a call is in flight until it finishes; the oldest is dropped past the bound. */
function callStarted(state: State, e: ToolCallStarted): State {
  const calls = state.calls;
  const inFlight = calls.inFlight.filter((c) => c.callId !== e.callId);
  inFlight.push({
    callId: e.callId,
    name: e.name,
    publicName: e.publicName ?? null,
    owner: e.owner ?? null,
    at: e.at ?? null,
  });
  if (inFlight.length > IN_FLIGHT_LIMIT) inFlight.splice(0, inFlight.length - IN_FLIGHT_LIMIT);
  return update(state, { calls: { ...calls, started: calls.started + 1, inFlight } });
}

/** C4: counts the outcome (per tool when the call resolved) and keeps the latest few calls. */
function callFinished(state: State, e: ToolCallFinished): State {
  const calls = state.calls;
  const index = calls.inFlight.findIndex((c) => c.callId === e.callId);
  const started = index === -1 ? undefined : calls.inFlight[index];
  const inFlight = index === -1 ? calls.inFlight : calls.inFlight.filter((_, i) => i !== index);
  const record: CallRecord = {
    callId: e.callId,
    name: started?.name ?? "",
    publicName: started?.publicName ?? null,
    owner: started?.owner ?? null,
    outcome: e.outcome,
    reason: e.reason ?? null,
    durationMs: e.durationMs,
    at: e.at ?? null,
  };
  let byTool = calls.byTool;
  if (record.publicName !== null) {
    const before = hget(byTool, record.publicName);
    const stats: ToolCallStats = {
      total: (before?.total ?? 0) + 1,
      outcomes: countOutcome(before?.outcomes ?? NO_CALL_OUTCOMES, e.outcome),
      lastOutcome: e.outcome,
    };
    byTool = hset(byTool, record.publicName, stats);
  }
  const recent =
    calls.recent.length >= CALL_HISTORY_LIMIT ? calls.recent.slice(1) : [...calls.recent];
  recent.push(record);
  const next: CallSummary = {
    started: calls.started,
    finished: calls.finished + 1,
    outcomes: countOutcome(calls.outcomes, e.outcome),
    byTool,
    recent,
    inFlight,
  };
  return update(state, { calls: next });
}

function countOutcome(
  counts: Readonly<Record<CallOutcome, number>>,
  outcome: CallOutcome,
): Readonly<Record<CallOutcome, number>> {
  const next = { ...counts };
  next[outcome] += 1;
  return next;
}
