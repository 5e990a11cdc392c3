/**
 * A server's `oauth` config object (the same names in every config format). Every field is
 * optional: a remote server that answers 401 is authorized with discovery and dynamic
 * registration alone.
 */
export interface OAuthSettings {
  /** A client registered beforehand with the authorization server (used first, A1). */
  clientId?: string;
  /** That client's secret (a secret: redacted everywhere). */
  clientSecret?: string;
  /** An https URL of a client ID metadata document, used as the client ID where the server supports it. */
  clientMetadataUrl?: string;
  /** The scopes to ask for, instead of the server's (WWW-Authenticate, else scopes_supported). */
  scopes?: string[];
  /** The loopback port of the redirect (`http://127.0.0.1:<port>/callback`); default: a free one. */
  callbackPort?: number;
  /** `client_credentials` for machine-to-machine servers (needs `clientId` and a secret or a key); default `authorization_code`. */
  grant?: "authorization_code" | "client_credentials";
  /** A PEM private key (PKCS#8) that signs a `private_key_jwt` client assertion instead of a secret (a secret). */
  privateKey?: string;
  /** The JWS algorithm of that assertion (ES256, RS256, PS256, EdDSA…); default from the key. */
  signingAlgorithm?: string;
}

/** The values of settings that are secrets, for the Redactor. */
export function oauthSecretValues(settings: OAuthSettings | undefined): string[] {
  if (!settings) return [];
  const out: string[] = [];
  if (settings.clientSecret) out.push(settings.clientSecret);
  if (settings.privateKey) {
    out.push(settings.privateKey);
    // The key's base64 body, line by line, as it may be quoted.
    for (const line of settings.privateKey.split(/\r?\n/))
      if (line.length >= 16 && !line.startsWith("-----")) out.push(line.trim());
  }
  return out;
}
