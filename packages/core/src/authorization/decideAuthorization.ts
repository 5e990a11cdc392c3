import { type At, accepted, type Decision, v } from "../decide/decision.js";
import { requireExtension } from "../decide/requireExtension.js";
import type { ToolledgerEvent } from "../events/events.js";
import type { State } from "../fold/state.js";
import type { OAuthCommand } from "./authorizationEvents.js";

/**
 * A1–A4: an OAuth command of a known extension becomes its event, as given (the host
 * records what happened; nothing here is a secret: the adapter never hands one over).
 */
export function decideAuthorization(state: State, command: OAuthCommand, at: At): Decision {
  const known = requireExtension(state, command.extension);
  if (!known.ok) return known;
  const key = known.key;
  let event: ToolledgerEvent;
  switch (command.type) {
    case "RequireAuthorization":
      event = {
        type: "OAuthAuthorizationRequired",
        v,
        ...at,
        extension: key,
        issuer: command.issuer ?? null,
        scopes: command.scopes ?? [],
        reason: command.reason,
        prompt: command.prompt ?? "none",
      };
      break;
    case "RecordAuthorization":
      event = {
        type: "OAuthAuthorized",
        v,
        ...at,
        extension: key,
        issuer: command.issuer,
        scopes: command.scopes ?? [],
        expiresAt: command.expiresAt ?? null,
        grant: command.grant,
        client: command.client,
      };
      break;
    case "RecordTokenRefresh":
      event = {
        type: "OAuthTokenRefreshed",
        v,
        ...at,
        extension: key,
        issuer: command.issuer,
        scopes: command.scopes ?? [],
        expiresAt: command.expiresAt ?? null,
      };
      break;
    case "RecordAuthorizationFailure":
      event = {
        type: "OAuthAuthorizationFailed",
        v,
        ...at,
        extension: key,
        issuer: command.issuer ?? null,
        error: command.error,
        message: command.message ?? null,
      };
      break;
    default: {
      const unreachable: never = command;
      return unreachable;
    }
  }
  return accepted([event]);
}
