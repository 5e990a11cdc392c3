import {
  type At,
  accepted,
  type Decision,
  type ParsedCommand,
  rejected,
  v,
} from "../decide/decision.js";
import type { ToolledgerEvent } from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { hhas, hkeys } from "../fold/hashDict.js";
import type { State } from "../fold/state.js";
import { validateEnable } from "./validateEnable.js";

export type DeferralCommand = Extract<
  ParsedCommand,
  {
    type:
      | "ConfigureDeferral"
      | "EnableTools"
      | "RequestEnableTools"
      | "ApproveEnableTools"
      | "DenyEnableTools"
      | "Compact"
      | "Clear";
  }
>;

/**
 * A conversation's deferred loading (D1–D9). A failed enable is still a decision: it yields
 * the request and a failed response, so the audit sees it.
 */
export function decideDeferral(state: State, command: DeferralCommand, at: At): Decision {
  switch (command.type) {
    case "ConfigureDeferral": {
      const event: ToolledgerEvent = {
        type: "DeferralConfigured",
        v,
        ...at,
        mode: command.mode,
        alwaysLoad: command.alwaysLoad ?? [],
        ...(command.budget === undefined ? {} : { budget: command.budget }),
      };
      return accepted(evolve(state, event) === state ? [] : [event]);
    }
    case "EnableTools":
    case "RequestEnableTools": {
      if (
        state.pending.some((p) => p.callId === command.callId) ||
        hhas(state.answered, command.callId)
      ) {
        return rejected(
          "DUPLICATE_CALL_ID",
          `call id ${JSON.stringify(command.callId)} was already used in this conversation; use a fresh call id`,
        );
      }
      const request: ToolledgerEvent = {
        type: "EnableToolsRequested",
        v,
        ...at,
        callId: command.callId,
        names: [...command.names],
      };
      // D5: the two-step form records the request alone; the host's layer answers later.
      if (command.type === "RequestEnableTools") return accepted([request]);
      return accepted([request, respond(state, command.callId, command.names, at)]);
    }
    case "ApproveEnableTools":
    case "DenyEnableTools": {
      const request = state.pending.find((p) => p.callId === command.callId);
      if (!request) {
        return rejected(
          "UNKNOWN_CALL_ID",
          `no enable_tools request with call id ${JSON.stringify(command.callId)} is awaiting a response (pending: ${state.pending.map((p) => JSON.stringify(p.callId)).join(", ") || "none"}); record it first with RequestEnableTools`,
        );
      }
      if (command.type === "ApproveEnableTools")
        return accepted([respond(state, command.callId, request.names, at)]);
      return accepted([
        {
          type: "EnableToolsResponded",
          v,
          ...at,
          callId: command.callId,
          ok: false,
          error: { code: "DENIED", message: command.reason, invalid: [] },
        },
      ]);
    }
    case "Compact":
      return accepted([
        {
          type: "Compacted",
          v,
          ...at,
          enabled: [...state.enabled],
          pending: state.pending.map((p) => ({ callId: p.callId, names: [...p.names] })),
          answered: hkeys(state.answered),
          anomalies: [...state.anomalies],
          anomalyCount: state.anomalyCount,
        },
      ]);
    case "Clear":
      return accepted([{ type: "Cleared", v, ...at }]);
  }
}

/** D5: the response to a request, validated against the registry of this moment. */
function respond(state: State, callId: string, names: readonly string[], at: At): ToolledgerEvent {
  const error = validateEnable(state, names);
  return error
    ? { type: "EnableToolsResponded", v, ...at, callId, ok: false, error }
    : { type: "EnableToolsResponded", v, ...at, callId, ok: true };
}
