import { hget, hkeys } from "./_hashDict.js";
import type { OAuthCommand } from "./authorizationEvents.js";
import type { Decision } from "./decide.js";
import { EVENT_SCHEMA_VERSION, type ToolledgerEvent } from "./events.js";
import { nameToKey } from "./nameToKey.js";
import type { State } from "./state.js";

const v = EVENT_SCHEMA_VERSION;

/**
 * A1–A4: an OAuth command of a known extension becomes its event, as given (the host
 * records what happened; nothing here is a secret: the adapter never hands one over).
 */
export function decideAuthorization(
  state: State,
  command: OAuthCommand,
  at: { at?: string },
): Decision {
  const key = nameToKey(command.extension);
  if (!hget(state.extensions, key)) {
    return {
      ok: false,
      error: {
        code: "UNKNOWN_EXTENSION",
        message: `no extension ${JSON.stringify(command.extension)} (key ${JSON.stringify(key)}); known: ${hkeys(state.extensions).sort().join(", ") || "none"}`,
      },
    };
  }
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
  return { ok: true, events: [event] };
}
