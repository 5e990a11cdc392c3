import type { FetchLike } from "@modelcontextprotocol/client";
import {
  OAuthError,
  OAuthErrorCode,
  refreshAuthorization,
  selectResourceURL,
} from "@modelcontextprotocol/client";
import type { Redactor } from "../redaction/redactor.js";
import { failureOf } from "./oauthFailure.js";
import type { StoreOAuthProvider } from "./storeProvider.js";
import type { GrantRecord } from "./tokenStore.js";

export type RefreshOutcome =
  | {
      ok: true;
      token: string;
      activity: { issuer: string; scopes: string[]; expiresAt: string | null };
    }
  | { ok: false; error: string; message: string; retryLater: boolean };

/**
 * A2: one refresh of a grant (the caller holds its lock). The new tokens replace the old ones
 * at once (a rotated refresh token is never lost). `invalid_grant` drops the tokens (a new
 * authorization is needed); `invalid_client` also drops a dynamically registered client (it
 * is registered again at the next authorization); anything else keeps them and is retried later.
 */
export async function refreshGrant(
  provider: StoreOAuthProvider,
  grant: GrantRecord,
  options: { fetch: FetchLike; now: () => number; redactor: () => Redactor },
): Promise<RefreshOutcome> {
  const refreshToken = grant.tokens?.refresh_token;
  const client = provider.clientInformation();
  if (!refreshToken || !client)
    return {
      ok: false,
      error: "invalid_client",
      message: "no client registration is stored",
      retryLater: false,
    };
  const discovery = provider.discoveryState();
  try {
    const resource = await selectResourceURL(
      provider.serverUrl,
      provider,
      discovery?.resourceMetadata,
    );
    const tokens = await refreshAuthorization(grant.issuer, {
      ...(discovery?.authorizationServerMetadata
        ? { metadata: discovery.authorizationServerMetadata }
        : {}),
      clientInformation: client,
      refreshToken,
      // The metadata's indicator as written (the SDK's rule: a URL's href may add a slash).
      ...(resource ? { resource: discovery?.resourceMetadata?.resource ?? resource } : {}),
      ...(provider.addClientAuthentication
        ? { addClientAuthentication: provider.addClientAuthentication }
        : {}),
      fetchFn: options.fetch,
    });
    const saved = provider.saveRefreshedTokens({ ...tokens, issuer: grant.issuer });
    return {
      ok: true,
      token: tokens.access_token,
      activity: {
        issuer: grant.issuer,
        scopes: saved.scopes,
        expiresAt: saved.expiresAt === null ? null : new Date(saved.expiresAt).toISOString(),
      },
    };
  } catch (error) {
    if (error instanceof OAuthError && error.code === OAuthErrorCode.InvalidGrant) {
      provider.invalidateCredentials("tokens");
      return {
        ok: false,
        error: "invalid_grant",
        message:
          "the authorization server refused the refresh token (expired or revoked); authorize again",
        retryLater: false,
      };
    }
    if (
      error instanceof OAuthError &&
      (error.code === OAuthErrorCode.InvalidClient ||
        error.code === OAuthErrorCode.UnauthorizedClient)
    ) {
      if (grant.client?.kind === "dynamic") provider.invalidateCredentials("client");
      provider.invalidateCredentials("tokens");
      return {
        ok: false,
        error: error.code,
        message: `the authorization server no longer accepts toolledger's client (${error.code}); ${grant.client?.kind === "dynamic" ? "it registers again at the next authorization" : "check oauth.clientId and oauth.clientSecret"}`,
        retryLater: false,
      };
    }
    const f = failureOf(error, options.redactor());
    return {
      ok: false,
      error: f.code,
      message: `the refresh failed: ${f.message}`,
      retryLater: true,
    };
  }
}
