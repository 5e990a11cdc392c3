import { randomBytes } from "node:crypto";
import type {
  AddClientAuthentication,
  AuthorizationServerMetadata,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client";
import type { OAuthSettings } from "./oauthSettings.js";
import { JWT_BEARER_ASSERTION, signClientAssertion } from "./privateKeyJwt.js";
import {
  type ClientKind,
  emptyGrant,
  type GrantRecord,
  type OAuthTokenStore,
} from "./tokenStore.js";

/** The name toolledger registers under (RFC 7591 `client_name`). */
export const CLIENT_NAME = "toolledger";

/**
 * The SDK's `OAuthClientProvider` for one server, backed by the token store: discovery per
 * server, client registration and tokens per server and issuer. The flow's own secrets (the
 * PKCE verifier, `state`) live in memory only. Every secret it sees is handed to `onSecret`
 * first, so the Redactor knows it before anything could print it.
 */
export class StoreOAuthProvider implements OAuthClientProvider {
  readonly serverUrl: string;
  readonly settings: OAuthSettings;
  readonly #store: OAuthTokenStore;
  readonly #onSecret: (value: string) => void;
  readonly #now: () => number;
  #redirectUri: string | null = null;
  #verifier: string | null = null;
  #state: string | null = null;
  #authorizationUrl: URL | null = null;
  /** While a new authorization starts, the stored tokens are not offered (no refresh instead). */
  #hideTokens = false;
  /** The scope asked for by the flow in progress (A1: challenge, else scopes_supported). */
  #flowScope: string | undefined;
  /** Set when a token response arrives: what the next saveTokens came from. */
  #grantType: "authorization_code" | "client_credentials" = "authorization_code";
  declare readonly addClientAuthentication?: AddClientAuthentication;
  /** A1: used as the client ID where the server supports client ID metadata documents. */
  declare readonly clientMetadataUrl?: string;

  constructor(options: {
    serverUrl: string;
    settings: OAuthSettings | undefined;
    store: OAuthTokenStore;
    onSecret?: (value: string) => void;
    now?: () => number;
  }) {
    this.serverUrl = options.serverUrl;
    this.settings = options.settings ?? {};
    this.#store = options.store;
    this.#onSecret = options.onSecret ?? (() => {});
    this.#now = options.now ?? Date.now;
    if (this.settings.clientMetadataUrl)
      (this as { clientMetadataUrl?: string }).clientMetadataUrl = this.settings.clientMetadataUrl;
    const key = this.settings.privateKey;
    const clientId = this.settings.clientId;
    if (key && clientId) {
      // A1 private_key_jwt: the assertion replaces a secret at the token endpoint.
      (this as { addClientAuthentication?: AddClientAuthentication }).addClientAuthentication = (
        _headers,
        params,
        url,
        metadata,
      ) => {
        const assertion = signClientAssertion({
          clientId,
          audience: String(metadata?.issuer ?? url),
          privateKeyPem: key,
          ...(this.settings.signingAlgorithm ? { algorithm: this.settings.signingAlgorithm } : {}),
          now: this.#now(),
        });
        this.#onSecret(assertion);
        params.set("client_id", clientId);
        params.set("client_assertion", assertion);
        params.set("client_assertion_type", JWT_BEARER_ASSERTION);
      };
    }
  }

  get clientCredentials(): boolean {
    return this.settings.grant === "client_credentials";
  }

  // ---- the flow in progress -----------------------------------------------------------

  /** Prepares a new authorization: its redirect, the scope asked for, the stored tokens hidden. */
  beginFlow(options: { redirectUri: string | null; scope: string | undefined }): void {
    this.#redirectUri = options.redirectUri;
    this.#flowScope = options.scope;
    this.#verifier = null;
    this.#state = null;
    this.#authorizationUrl = null;
    this.#hideTokens = true;
    this.#grantType = this.clientCredentials ? "client_credentials" : "authorization_code";
  }

  /** The authorization request's URL once `auth()` prepared it (then it returned REDIRECT). */
  get authorizationUrl(): URL | null {
    return this.#authorizationUrl;
  }

  get flowState(): string | null {
    return this.#state;
  }

  get flowScope(): string | undefined {
    return this.#flowScope;
  }

  /** The code is about to be exchanged: stored tokens stay hidden, nothing else changes. */
  showTokens(): void {
    this.#hideTokens = false;
  }

  // ---- OAuthClientProvider ------------------------------------------------------------

  get redirectUrl(): string | undefined {
    if (this.clientCredentials) return undefined;
    return this.#redirectUri ?? undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scope = this.#flowScope ?? this.settings.scopes?.join(" ");
    if (this.clientCredentials) {
      return {
        client_name: CLIENT_NAME,
        redirect_uris: [],
        grant_types: ["client_credentials"],
        ...(scope ? { scope } : {}),
      };
    }
    return {
      client_name: CLIENT_NAME,
      redirect_uris: this.#redirectUri ? [this.#redirectUri] : [],
      // A1: strict servers refuse a registration that cannot refresh.
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.#registrationAuthMethod(),
      ...(scope ? { scope } : {}),
    };
  }

  state(): string {
    this.#state = randomBytes(24).toString("base64url");
    return this.#state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.settings.clientId) {
      return {
        client_id: this.settings.clientId,
        ...(this.settings.clientSecret ? { client_secret: this.settings.clientSecret } : {}),
      };
    }
    const stored = this.#grant()?.client?.info;
    if (stored?.client_secret) this.#onSecret(stored.client_secret);
    return stored;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    // A configured client stays in the config; the SDK only stamps it with the issuer.
    if (this.settings.clientId) return;
    if (info.client_secret) this.#onSecret(info.client_secret);
    const kind: ClientKind =
      this.settings.clientMetadataUrl && info.client_id === this.settings.clientMetadataUrl
        ? "metadata_document"
        : "dynamic";
    this.#update((g) => {
      g.client = { info, kind, redirectUri: this.#redirectUri };
    });
  }

  tokens(): OAuthTokens | undefined {
    if (this.#hideTokens) return undefined;
    const tokens = this.#grant()?.tokens ?? undefined;
    if (tokens) this.#secretsOf(tokens);
    return tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#secretsOf(tokens);
    const now = this.#now();
    const granted = (tokens.scope ?? this.#flowScope ?? "").split(/\s+/).filter(Boolean);
    this.#update((g) => {
      g.tokens = tokens;
      g.expiresAt = typeof tokens.expires_in === "number" ? now + tokens.expires_in * 1000 : null;
      g.obtainedAt = now;
      g.scopes = granted;
      g.grant = this.#grantType;
      g.clientKind = this.settings.clientId ? "configured" : (g.client?.kind ?? "dynamic");
      g.authorizedAt = new Date(now).toISOString();
    });
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.#authorizationUrl = authorizationUrl;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#onSecret(codeVerifier);
    this.#verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.#verifier === null)
      throw new Error("no authorization is in progress (no PKCE verifier); start it again");
    return this.#verifier;
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (!this.clientCredentials) return undefined;
    const params = new URLSearchParams({ grant_type: "client_credentials" });
    if (scope) params.set("scope", scope);
    return params;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "verifier") {
      this.#verifier = null;
      return;
    }
    if (scope === "all" || scope === "discovery") {
      const server = this.#store.readServer(this.serverUrl);
      if (server) this.#store.writeServer({ ...server, discovery: null, updatedAt: this.#iso() });
    }
    if (scope === "discovery") return;
    this.#update((g) => {
      if (scope === "all" || scope === "tokens") {
        g.tokens = null;
        g.expiresAt = null;
      }
      // A1: a dynamically registered client the server no longer knows is registered again.
      if (scope === "all" || scope === "client") g.client = null;
    });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#store.readServer(this.serverUrl)?.discovery ?? undefined;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#store.writeServer({
      serverUrl: this.serverUrl,
      issuer: state.authorizationServerUrl,
      discovery: state,
      updatedAt: this.#iso(),
    });
  }

  // ---- helpers for the authorizer -----------------------------------------------------

  /** The authorization server discovery found for this server, or null before discovery. */
  get issuer(): string | null {
    return this.#store.readServer(this.serverUrl)?.issuer ?? null;
  }

  get metadata(): AuthorizationServerMetadata | undefined {
    return this.discoveryState()?.authorizationServerMetadata;
  }

  /** The current issuer's grant as stored (read from disk each time: another process may have written it). */
  grant(): GrantRecord | null {
    return this.#grant();
  }

  /** A2: a refresh's tokens replace the old ones (scopes kept when the response names none). */
  saveRefreshedTokens(tokens: OAuthTokens): GrantRecord {
    this.#secretsOf(tokens);
    const now = this.#now();
    return this.#update((g) => {
      g.tokens = tokens;
      g.expiresAt = typeof tokens.expires_in === "number" ? now + tokens.expires_in * 1000 : null;
      g.obtainedAt = now;
      if (tokens.scope) g.scopes = tokens.scope.split(/\s+/).filter(Boolean);
      g.lastRefreshAt = new Date(now).toISOString();
      g.refreshes += 1;
    });
  }

  #grant(): GrantRecord | null {
    const issuer = this.issuer;
    return issuer ? this.#store.read(this.serverUrl, issuer) : null;
  }

  #update(change: (g: GrantRecord) => void): GrantRecord {
    const issuer = this.issuer;
    if (!issuer) throw new Error("OAuth state cannot be saved before discovery named an issuer");
    const g = structuredClone(
      this.#store.read(this.serverUrl, issuer) ?? emptyGrant(this.serverUrl, issuer),
    );
    change(g);
    g.generation += 1;
    this.#store.write(g);
    return g;
  }

  #secretsOf(tokens: OAuthTokens): void {
    this.#onSecret(tokens.access_token);
    if (tokens.refresh_token) this.#onSecret(tokens.refresh_token);
    if (tokens.id_token) this.#onSecret(tokens.id_token);
  }

  /** A1: a public client (`none`) where the server allows it, else what it supports. */
  #registrationAuthMethod(): string {
    const supported = this.metadata?.token_endpoint_auth_methods_supported;
    if (!supported || supported.includes("none")) return "none";
    return (
      ["client_secret_basic", "client_secret_post"].find((m) => supported.includes(m)) ?? "none"
    );
  }

  #iso(): string {
    return new Date(this.#now()).toISOString();
  }
}
