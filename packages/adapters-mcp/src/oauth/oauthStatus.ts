import type { GrantRecord, OAuthTokenStore } from "./tokenStore.js";

/** A2: one server's OAuth state as `auth status` and `doctor` show it: never a token or a secret. */
export interface OAuthServerStatus {
  serverUrl: string;
  /** The authorization server in use (discovery's latest answer), or null. */
  issuer: string | null;
  grants: OAuthGrantStatus[];
}

export interface OAuthGrantStatus {
  issuer: string;
  /** Whether an access token is stored, and whether it is still valid at `now`. */
  state: "authorized" | "expired" | "no_token";
  scopes: string[];
  expiresAt: string | null;
  authorizedAt: string | null;
  lastRefreshAt: string | null;
  refreshes: number;
  /** A refresh token is stored (the token renews without the user). */
  refreshable: boolean;
  grant: string | null;
  client: string | null;
}

/**
 * The OAuth state of every server in the store (or of `serverUrl` only), without secrets:
 * for `toolledger auth status` and for `doctor`. A damaged file throws OAuthStoreError.
 */
export function readOAuthStatus(
  store: OAuthTokenStore,
  options: { serverUrl?: string; now?: number } = {},
): OAuthServerStatus[] {
  const now = options.now ?? Date.now();
  return store
    .list()
    .filter((s) => options.serverUrl === undefined || s.server.serverUrl === options.serverUrl)
    .map(({ server, grants }) => ({
      serverUrl: server.serverUrl,
      issuer: server.issuer,
      grants: grants.map((g) => grantStatus(g, now)),
    }));
}

function grantStatus(g: GrantRecord, now: number): OAuthGrantStatus {
  return {
    issuer: g.issuer,
    state: !g.tokens
      ? "no_token"
      : g.expiresAt !== null && g.expiresAt <= now
        ? "expired"
        : "authorized",
    scopes: [...g.scopes],
    expiresAt: g.expiresAt === null ? null : new Date(g.expiresAt).toISOString(),
    authorizedAt: g.authorizedAt,
    lastRefreshAt: g.lastRefreshAt,
    refreshes: g.refreshes,
    refreshable: Boolean(g.tokens?.refresh_token),
    grant: g.grant,
    client: g.clientKind,
  };
}
