import { hget, hset } from "../fold/hashDict.js";
import { ignore } from "../fold/ignore.js";
import type { ExtensionState, State } from "../fold/state.js";
import { update } from "../fold/update.js";
import { nameToKey } from "../naming/nameToKey.js";
import type { OAuthEvent } from "./authorizationEvents.js";
import type { ExtensionAuthorization } from "./authorizationState.js";

const NONE: ExtensionAuthorization = Object.freeze({
  status: "required",
  issuer: null,
  scopes: [],
  expiresAt: null,
  grant: null,
  client: null,
  reason: null,
  error: null,
  message: null,
  authorizedAt: null,
  lastRefreshAt: null,
  refreshes: 0,
});

/** A1–A4: an OAuth event changes its extension's authorization and nothing else. */
export function authorizationChanged(state: State, e: OAuthEvent): State {
  const key = nameToKey(e.extension);
  const ext = hget(state.extensions, key);
  if (!ext) return ignore(state, e.type, `no extension ${JSON.stringify(key)}`);
  return update(state, { extensions: hset(state.extensions, key, evolveAuthorization(ext, e)) });
}

/** Folds one OAuth event into its extension (the registry's tools are untouched). */
export function evolveAuthorization(ext: ExtensionState, e: OAuthEvent): ExtensionState {
  const was = ext.authorization ?? NONE;
  let next: ExtensionAuthorization;
  switch (e.type) {
    case "OAuthAuthorizationRequired":
      next = {
        ...was,
        status: "required",
        issuer: e.issuer ?? was.issuer,
        scopes: e.scopes,
        reason: e.reason,
      };
      break;
    case "OAuthAuthorized":
      next = {
        ...was,
        status: "authorized",
        issuer: e.issuer,
        scopes: e.scopes,
        expiresAt: e.expiresAt,
        grant: e.grant,
        client: e.client,
        reason: null,
        error: null,
        message: null,
        authorizedAt: e.at ?? null,
      };
      break;
    case "OAuthTokenRefreshed":
      next = {
        ...was,
        status: "authorized",
        issuer: e.issuer,
        scopes: e.scopes.length > 0 ? e.scopes : was.scopes,
        expiresAt: e.expiresAt,
        reason: null,
        error: null,
        message: null,
        lastRefreshAt: e.at ?? null,
        refreshes: was.refreshes + 1,
      };
      break;
    case "OAuthAuthorizationFailed":
      next = {
        ...was,
        status: "failed",
        issuer: e.issuer ?? was.issuer,
        error: e.error,
        message: e.message,
      };
      break;
    default: {
      const unreachable: never = e;
      return unreachable;
    }
  }
  const out = { ...ext };
  out.authorization = next;
  return out;
}
