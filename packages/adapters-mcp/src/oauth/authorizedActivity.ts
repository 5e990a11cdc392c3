import type { OAuthActivity } from "./authorizationTypes.js";
import type { GrantRecord } from "./tokenStore.js";

/** What a stored grant says once a server is authorized (for `onActivity`, then the log). */
export function authorizedActivity(grant: GrantRecord, configuredClient: boolean): OAuthActivity {
  return {
    kind: "authorized",
    issuer: grant.issuer,
    scopes: grant.scopes,
    expiresAt: grant.expiresAt === null ? null : new Date(grant.expiresAt).toISOString(),
    grant: grant.grant ?? "authorization_code",
    client: grant.clientKind ?? (configuredClient ? "configured" : "dynamic"),
  };
}
