import type { AuthorizationServerMetadata, FetchLike } from "@modelcontextprotocol/client";
import {
  discoverAuthorizationServerMetadata,
  selectClientAuthMethod,
} from "@modelcontextprotocol/client";
import type { Redactor } from "../redaction/redactor.js";
import { failureOf } from "./oauthFailure.js";
import type { StoreOAuthProvider } from "./storeProvider.js";
import type { GrantRecord } from "./tokenStore.js";

/** What revoking one grant did. */
export interface RevokeOutcome {
  issuer: string;
  /** Tokens the authorization server accepted for revocation (RFC 7009: 200). */
  revoked: number;
  /** The server names no revocation endpoint: the tokens are only forgotten. */
  unsupported: boolean;
  /** Secret-free failures (the tokens are forgotten anyway). */
  errors: string[];
}

/**
 * A2 logout: asks the grant's own authorization server (never another) to revoke its refresh
 * token, then its access token (RFC 7009), authenticating as at its token endpoint.
 */
export async function revokeGrant(
  provider: StoreOAuthProvider,
  grant: GrantRecord,
  options: { fetch: FetchLike; redactor: () => Redactor },
): Promise<RevokeOutcome> {
  const out: RevokeOutcome = { issuer: grant.issuer, revoked: 0, unsupported: false, errors: [] };
  const tokens = [
    ...(grant.tokens?.refresh_token
      ? [["refresh_token", grant.tokens.refresh_token] as const]
      : []),
    ...(grant.tokens?.access_token ? [["access_token", grant.tokens.access_token] as const] : []),
  ];
  if (tokens.length === 0) return out;
  let metadata: AuthorizationServerMetadata | undefined;
  try {
    const discovery = provider.discoveryState();
    metadata =
      discovery?.authorizationServerUrl === grant.issuer && discovery.authorizationServerMetadata
        ? discovery.authorizationServerMetadata
        : await discoverAuthorizationServerMetadata(grant.issuer, { fetchFn: options.fetch });
  } catch (error) {
    out.errors.push(
      `its metadata could not be read: ${failureOf(error, options.redactor()).message}`,
    );
    return out;
  }
  const endpoint = (metadata as { revocation_endpoint?: string } | undefined)?.revocation_endpoint;
  if (!endpoint) {
    out.unsupported = true;
    return out;
  }
  const client = provider.settings.clientId
    ? {
        client_id: provider.settings.clientId,
        ...(provider.settings.clientSecret
          ? { client_secret: provider.settings.clientSecret }
          : {}),
      }
    : grant.client?.info;
  for (const [hint, token] of tokens) {
    const headers = new Headers({
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    });
    const params = new URLSearchParams({ token, token_type_hint: hint });
    if (provider.addClientAuthentication) {
      await provider.addClientAuthentication(headers, params, endpoint, metadata);
    } else if (client) {
      const supported =
        (metadata as { revocation_endpoint_auth_methods_supported?: string[] } | undefined)
          ?.revocation_endpoint_auth_methods_supported ??
        metadata?.token_endpoint_auth_methods_supported ??
        [];
      const method = selectClientAuthMethod(client, supported);
      if (method === "client_secret_basic" && client.client_secret) {
        headers.set(
          "authorization",
          `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString("base64")}`,
        );
      } else {
        params.set("client_id", client.client_id);
        if (method === "client_secret_post" && client.client_secret)
          params.set("client_secret", client.client_secret);
      }
    }
    try {
      const response = await options.fetch(endpoint, { method: "POST", headers, body: params });
      await response.body?.cancel().catch(() => undefined);
      if (response.ok) out.revoked += 1;
      else
        out.errors.push(`revoking the ${hint.replace("_", " ")} answered HTTP ${response.status}`);
    } catch (error) {
      out.errors.push(
        `revoking the ${hint.replace("_", " ")} failed: ${failureOf(error, options.redactor()).message}`,
      );
    }
  }
  return out;
}
