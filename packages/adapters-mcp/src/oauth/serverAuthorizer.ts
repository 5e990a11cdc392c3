import {
  auth,
  discoverOAuthProtectedResourceMetadata,
  discoverOAuthServerInfo,
  extractWWWAuthenticateParams,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { Redactor } from "../redactor.js";
import {
  AuthorizationFailedError,
  AuthorizationRequiredError,
} from "./authorizationRequiredError.js";
import {
  type AuthorizationStep,
  type StepOutcome,
  startAuthorizationStep,
} from "./authorizationStep.js";
import { failureOf } from "./oauthFailure.js";
import { type OAuthSettings, oauthSecretValues } from "./oauthSettings.js";
import type { BrowserOutcome } from "./openBrowser.js";
import { refreshGrant } from "./refreshGrant.js";
import { type RevokeOutcome, revokeGrant } from "./revokeGrant.js";
import { StoreOAuthProvider } from "./storeProvider.js";
import {
  type ClientKind,
  type GrantRecord,
  normalizeServerUrl,
  type OAuthTokenStore,
} from "./tokenStore.js";

/** What a server's authorization did, for the host's events (A4): never a secret. */
export type OAuthActivity =
  | {
      kind: "required";
      issuer: string | null;
      scopes: string[];
      reason: string;
      prompt: BrowserOutcome | "none";
    }
  | {
      kind: "authorized";
      issuer: string;
      scopes: string[];
      expiresAt: string | null;
      grant: "authorization_code" | "client_credentials";
      client: ClientKind;
    }
  | { kind: "refreshed"; issuer: string; scopes: string[]; expiresAt: string | null }
  | { kind: "failed"; issuer: string | null; error: string; message: string };

/** How the user is asked to authorize: the URL shown (browser or printed), a pasted callback read. */
export interface AuthorizationPrompt {
  present(url: URL, server: string): Promise<BrowserOutcome>;
  /** `--no-browser`: the callback URL the user pasted, once they did (or null: none will come). */
  pasted?(): Promise<string | null>;
}

export interface ServerAuthorizerOptions {
  /** The extension's display name (messages, `toolledger auth login <name>`). */
  name: string;
  serverUrl: string;
  settings?: OAuthSettings;
  store: OAuthTokenStore;
  /** How `serve` asks the user (once per scope set); null: never, the error says to run `auth login`. */
  prompt: AuthorizationPrompt | null;
  /** The command that authorizes this server from a terminal (said in messages). */
  loginCommand?: string;
  onActivity?: (activity: OAuthActivity) => void;
  onSecret?: (value: string) => void;
  /** The fetch for the authorization server and discovery (never the transports'). */
  fetch?: FetchLike;
  now?: () => number;
  /** How long a browser step waits for the redirect. Default 10 minutes. */
  authorizationTimeoutMs?: number;
  /** A token this close to its expiry is refreshed before use. Default 60 s. */
  refreshMarginMs?: number;
  /** How often a server waiting for authorization looks for a token another process stored. Default 1 s. */
  watchIntervalMs?: number;
}

/** A4: the most browser steps one server may start while it waits for authorization (step-up included). */
const MAX_PROMPTS = 3;

/**
 * A1–A4: the OAuth client of one remote server. Its `fetch` goes into the server's transport
 * (streamable HTTP or SSE): it adds the bearer token (to the server's own origin only),
 * refreshes it before it expires, and on 401 / 403 `insufficient_scope` renews it (a token
 * another process stored, a refresh, client credentials) or starts the browser step and
 * throws AuthorizationRequiredError. Discovery, registration, PKCE, `resource` and the code
 * exchange are the SDK's `auth()`, on the StoreOAuthProvider.
 */
export class ServerAuthorizer {
  readonly name: string;
  readonly serverUrl: string;
  readonly provider: StoreOAuthProvider;
  /** For the transport: every request to the server goes through it. */
  readonly fetch: FetchLike = (url, init) => this.#fetch(url, init);
  readonly #origin: string;
  readonly #options: ServerAuthorizerOptions;
  readonly #base: FetchLike;
  readonly #now: () => number;
  readonly #secrets = new Set<string>();
  #redactor = Redactor.none;
  /** The grant as last read (undefined: not read yet). */
  #cache: GrantRecord | null | undefined;
  #renewing: Promise<string | undefined> | null = null;
  #step: AuthorizationStep | null = null;
  readonly #prompted = new Set<string>();
  /** Scope sets an authorization did not grant in full: a step-up never asks for them again. */
  readonly #ungranted = new Set<string>();
  /** While authorization is required: settles when a token arrives. */
  #waiting: { promise: Promise<void>; resolve: () => void; token: string | undefined } | null =
    null;
  #watch: NodeJS.Timeout | undefined;
  #watchedAt = 0;
  /** The OAuth error of the last failed renewal (`invalid_grant`…): why authorization is required again. */
  #lastFailure: string | null = null;
  #closed = false;

  constructor(options: ServerAuthorizerOptions) {
    this.#options = options;
    this.name = options.name;
    this.serverUrl = normalizeServerUrl(options.serverUrl);
    this.#origin = new URL(this.serverUrl).origin;
    this.#base = options.fetch ?? ((url, init) => fetch(url, init));
    this.#now = options.now ?? Date.now;
    for (const s of oauthSecretValues(options.settings)) this.#secret(s);
    this.provider = new StoreOAuthProvider({
      serverUrl: this.serverUrl,
      settings: options.settings,
      store: options.store,
      onSecret: (v) => this.#secret(v),
      now: this.#now,
    });
  }

  /** Every secret this server's authorization has seen (tokens, codes, verifiers, client secrets). */
  get redactor(): Redactor {
    return this.#redactor;
  }

  /** Whether the user must act (no usable token) right now. */
  get required(): boolean {
    return this.#waiting !== null;
  }

  /** Resolves once a usable token is stored (at once when none is missing). */
  whenAuthorized(): Promise<void> {
    return this.#waiting?.promise ?? Promise.resolve();
  }

  /** The command that authorizes this server from a terminal. */
  get loginCommand(): string {
    return this.#options.loginCommand ?? `toolledger auth login ${quote(this.name)}`;
  }

  /**
   * A1 (`toolledger auth login`): authorizes now, asking the user with `prompt` (or with
   * client credentials, asking no one), whatever is stored. Resolves with the outcome.
   */
  async login(
    prompt: AuthorizationPrompt,
    server: { headers?: Record<string, string>; sse?: boolean } = {},
  ): Promise<StepOutcome> {
    const { challenge, answered } = await this.#probe(server.headers, server.sse === true);
    if (answered && !this.provider.clientCredentials) {
      // It let an unauthenticated initialize through: OAuth only if it names an authorization server.
      try {
        await discoverOAuthProtectedResourceMetadata(this.serverUrl, {}, this.#base);
      } catch {
        return {
          ok: false,
          error: "not_required",
          message: `${this.name} answers without authorization and names no authorization server (no protected resource metadata): there is nothing to log in to`,
        };
      }
    }
    if (this.provider.clientCredentials) {
      try {
        await this.#clientCredentials(challenge);
        return { ok: true };
      } catch (error) {
        const f = failureOf(error, this.#redactor);
        return { ok: false, error: f.code, message: f.message };
      }
    }
    const scope = this.#scope(splitScopes(challenge.scope));
    await this.#step?.cancel();
    const step = await this.#begin("login", challenge, scope, prompt);
    return step.done;
  }

  /**
   * A2 (`toolledger auth logout`): revokes every grant of this server where its authorization
   * server supports revocation, then forgets the server (tokens, registrations, discovery).
   */
  async logout(): Promise<RevokeOutcome[]> {
    const entry = this.#options.store.list().find((s) => s.server.serverUrl === this.serverUrl);
    const outcomes: RevokeOutcome[] = [];
    for (const grant of entry?.grants ?? []) {
      for (const t of [grant.tokens?.access_token, grant.tokens?.refresh_token])
        if (t) this.#secret(t);
      outcomes.push(
        await revokeGrant(this.provider, grant, {
          fetch: this.#base,
          redactor: () => this.#redactor,
        }),
      );
    }
    this.#options.store.remove(this.serverUrl);
    this.#cache = undefined;
    return outcomes;
  }

  /** Stops watching and abandons a browser step in progress. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#watch);
    await this.#step?.cancel();
  }

  // ---- the transport's fetch ----------------------------------------------------------

  async #fetch(input: string | URL, init?: RequestInit): Promise<Response> {
    const url = new URL(String(input));
    const headers = new Headers(init?.headers);
    // A2: a token goes to its server's origin only; a static Authorization header of the
    // config is the user's own scheme, left alone.
    if (url.origin !== this.#origin || headers.has("authorization")) return this.#base(input, init);
    let token = await this.#accessToken();
    let response = await this.#send(input, init, headers, token);
    if (response.status === 401) {
      const challenge = extractWWWAuthenticateParams(response);
      await discard(response);
      token = await this.#after401(token, challenge);
      response = await this.#send(input, init, headers, token);
      if (response.status === 401) {
        // A token just renewed, refused at once: asking the user again would loop.
        await discard(response);
        const message = `${this.name} refused the token its authorization server just issued (HTTP 401); check that the server and its authorization server agree (audience, resource), then run \`${this.loginCommand}\``;
        this.#activity({
          kind: "failed",
          issuer: this.provider.issuer,
          error: "invalid_token",
          message,
        });
        throw new AuthorizationFailedError("invalid_token", message);
      }
    }
    if (response.status === 403) {
      const challenge = extractWWWAuthenticateParams(response);
      if (challenge.error === "insufficient_scope") {
        const scopes = this.#stepUpScopes(challenge.scope);
        if (scopes) {
          await discard(response);
          throw await this.#require("insufficient_scope", challenge, scopes, token);
        }
      }
    }
    return response;
  }

  #send(
    input: string | URL,
    init: RequestInit | undefined,
    headers: Headers,
    token: string | undefined,
  ): Promise<Response> {
    if (token === undefined) return this.#base(input, init);
    const withToken = new Headers(headers);
    withToken.set("authorization", `Bearer ${token}`);
    return this.#base(input, { ...init, headers: withToken });
  }

  /** A2: the stored access token, refreshed first when it is about to expire. */
  async #accessToken(): Promise<string | undefined> {
    const grant = this.#grant();
    const token = grant?.tokens?.access_token;
    if (!grant || token === undefined) return undefined;
    if (!this.#expiring(grant)) return token;
    const expired = grant.expiresAt !== null && grant.expiresAt <= this.#now();
    try {
      const renewed = await this.#renew(token, {});
      if (renewed !== undefined) return renewed;
    } catch (error) {
      // The authorization server is unreachable: a token that still works is used meanwhile.
      if (!expired) return token;
      throw error;
    }
    return expired ? undefined : token;
  }

  /** After a 401: a token renewed without the user, or the browser step (thrown). */
  async #after401(rejected: string | undefined, challenge: Challenge): Promise<string | undefined> {
    const scopes = this.#scope(splitScopes(challenge.scope));
    if (this.#step) throw this.requiredError();
    const renewed = await this.#renew(rejected, challenge);
    if (renewed !== undefined && renewed !== rejected) return renewed;
    const reason = this.#lastFailure ?? (rejected ? "rejected" : "no_token");
    throw await this.#require(reason, challenge, scopes, rejected);
  }

  /**
   * A2: a new access token without the user, one at a time per server and issuer across
   * processes: a token another process stored meanwhile, else a refresh, else client
   * credentials. Undefined when only the user can help.
   */
  #renew(stale: string | undefined, challenge: Challenge): Promise<string | undefined> {
    if (this.#renewing) return this.#renewing;
    const renewing = this.#renewOnce(stale, challenge);
    this.#renewing = renewing;
    // Cleared once settled (an async function may settle before this assignment ran).
    const clear = () => {
      if (this.#renewing === renewing) this.#renewing = null;
    };
    renewing.then(clear, clear);
    return renewing;
  }

  async #renewOnce(stale: string | undefined, challenge: Challenge): Promise<string | undefined> {
    if (this.provider.clientCredentials && !this.provider.issuer) await this.#discover(challenge);
    const issuer = this.provider.issuer;
    if (!issuer) return undefined;
    return this.#options.store.lock(this.serverUrl, issuer, async () => {
      const grant = this.#reload();
      const token = grant?.tokens?.access_token;
      if (grant && token !== undefined && token !== stale && !this.#expiring(grant)) {
        this.#adopted(grant);
        return token;
      }
      if (this.provider.clientCredentials) return this.#clientCredentials(challenge);
      if (!grant?.tokens?.refresh_token) return undefined;
      const refreshed = await refreshGrant(this.provider, grant, {
        fetch: this.#base,
        now: this.#now,
        redactor: () => this.#redactor,
      });
      this.#reload();
      if (refreshed.ok) {
        this.#activity({ kind: "refreshed", ...refreshed.activity });
        this.#settle();
        return refreshed.token;
      }
      this.#activity({
        kind: "failed",
        issuer,
        error: refreshed.error,
        message: refreshed.message,
      });
      this.#lastFailure = refreshed.error;
      if (refreshed.retryLater)
        throw new AuthorizationFailedError(refreshed.error, refreshed.message);
      return undefined;
    });
  }

  /** A1, machine to machine: a token for the configured client, no user involved. */
  async #clientCredentials(challenge: Challenge): Promise<string> {
    const scope = this.#scope(splitScopes(challenge.scope));
    this.provider.beginFlow({ redirectUri: null, scope: scope.join(" ") || undefined });
    try {
      await auth(this.provider, {
        serverUrl: this.serverUrl,
        ...(scope.length > 0 ? { scope: scope.join(" ") } : {}),
        ...(challenge.resourceMetadataUrl
          ? { resourceMetadataUrl: challenge.resourceMetadataUrl }
          : {}),
        fetchFn: this.#base,
      });
    } catch (error) {
      const f = failureOf(error, this.#redactor);
      this.#activity({
        kind: "failed",
        issuer: this.provider.issuer,
        error: f.code,
        message: f.message,
      });
      throw new AuthorizationFailedError(f.code, `${this.name}: ${f.message}`, { cause: error });
    } finally {
      this.provider.showTokens();
    }
    const grant = this.#reload();
    if (!grant?.tokens)
      throw new AuthorizationFailedError("no_token", `${this.name}: no token was stored`);
    this.#authorizedActivity(grant);
    this.#settle();
    return grant.tokens.access_token;
  }

  // ---- the user's part ----------------------------------------------------------------

  /**
   * A4: authorization is required. Starts the browser step (once per scope set, with the
   * prompt `serve` was given), records it, watches the store for a token another process
   * brings, and returns the error that fails the request.
   */
  async #require(
    reason: string,
    challenge: Challenge,
    scopes: string[],
    held: string | undefined,
  ): Promise<AuthorizationRequiredError | AuthorizationFailedError> {
    const entering = this.#waiting === null;
    if (entering) this.#enterWaiting(held);
    if (this.#step) return this.requiredError();
    const key = scopes.join(" ");
    const prompt = this.#options.prompt;
    if (!prompt || this.#prompted.has(key) || this.#prompted.size >= MAX_PROMPTS || this.#closed) {
      if (entering)
        this.#activity({
          kind: "required",
          issuer: this.provider.issuer,
          scopes,
          reason,
          prompt: "none",
        });
      return this.requiredError();
    }
    this.#prompted.add(key);
    try {
      await this.#begin(reason, challenge, scopes, prompt);
    } catch (error) {
      // Discovery or registration failed: nothing the user can click. Said as a failure (no
      // wait), with the OAuth error code; `auth login` stays the way to try again.
      const f = failureOf(error, this.#redactor);
      this.#activity({
        kind: "failed",
        issuer: this.provider.issuer,
        error: f.code,
        message: f.message,
      });
      this.#settle();
      return new AuthorizationFailedError(
        f.code,
        `${this.#needs()}, and it cannot start: ${f.message}; fix that, then run \`${this.loginCommand}\``,
        { cause: error },
      );
    }
    return this.requiredError();
  }

  /** Starts a browser step: discovery, registration, the authorization URL shown, the redirect awaited. */
  async #begin(
    reason: string,
    challenge: Challenge,
    scopes: string[],
    prompt: AuthorizationPrompt,
  ): Promise<AuthorizationStep> {
    const step = await startAuthorizationStep({
      name: this.name,
      serverUrl: this.serverUrl,
      provider: this.provider,
      prompt,
      scopes,
      challenge,
      fetch: this.#base,
      timeoutMs: this.#options.authorizationTimeoutMs ?? 600_000,
      redactor: () => this.#redactor,
      onSecret: (v) => this.#secret(v),
      onShown: (how) =>
        this.#activity({
          kind: "required",
          issuer: this.provider.issuer,
          scopes,
          reason,
          prompt: how,
        }),
    });
    this.#step = step;
    void step.done.then((outcome) => {
      if (this.#step === step) this.#step = null;
      if (outcome.ok) {
        const grant = this.#reload();
        if (grant) this.#authorizedActivity(grant);
        // Scopes asked for and not granted are not asked for again (a bounded step-up).
        if (!scopes.every((x) => grant?.scopes.includes(x))) this.#ungranted.add(scopes.join(" "));
        this.#settle();
      } else if (outcome.error !== "cancelled") {
        this.#activity({
          kind: "failed",
          issuer: this.provider.issuer,
          error: outcome.error,
          message: `${outcome.message}; run \`${this.loginCommand}\` to try again`,
        });
      }
    });
    return step;
  }

  #enterWaiting(held: string | undefined): void {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => {
      resolve = r;
    });
    this.#waiting = { promise, resolve, token: held };
    this.#watchedAt = this.#changedAt();
    clearInterval(this.#watch);
    this.#watch = setInterval(() => this.#look(), this.#options.watchIntervalMs ?? 1000);
    this.#watch.unref?.();
  }

  /** A token stored by another process (`toolledger auth login` in a terminal) ends the wait. */
  #look(): void {
    const at = this.#changedAt();
    if (at === this.#watchedAt || this.#closed) return;
    this.#watchedAt = at;
    let grant: GrantRecord | null;
    try {
      grant = this.#reload();
    } catch {
      return;
    }
    const token = grant?.tokens?.access_token;
    if (!grant || token === undefined || token === this.#waiting?.token) return;
    if (grant.expiresAt !== null && grant.expiresAt <= this.#now()) return;
    this.#adopted(grant);
  }

  #adopted(grant: GrantRecord): void {
    if (this.#waiting === null) return;
    this.#authorizedActivity(grant);
    void this.#step?.cancel();
    this.#settle();
  }

  /** A token is there: the wait ends (once), the watch stops; a later need may ask the user again. */
  #settle(): void {
    const waiting = this.#waiting;
    this.#waiting = null;
    this.#prompted.clear();
    this.#lastFailure = null;
    clearInterval(this.#watch);
    this.#watch = undefined;
    waiting?.resolve();
  }

  /** The error that fails a request while the user must authorize (what to do, and when it is done). */
  requiredError(): AuthorizationRequiredError {
    const step = this.#step;
    const how = step
      ? step.shown === "browser"
        ? "authorize it in the browser window that opened"
        : "open the authorization URL printed on toolledger's stderr"
      : null;
    return new AuthorizationRequiredError(
      this.name,
      `${this.#needs()}: ${how ? `${how}, or run` : "run"} \`${this.loginCommand}\``,
      this.whenAuthorized(),
      step !== null,
    );
  }

  #needs(): string {
    return `extension ${JSON.stringify(this.name)} needs OAuth authorization`;
  }

  // ---- helpers ------------------------------------------------------------------------

  /** A1 scope selection: the configured scopes, else the challenge's, else none (the SDK then takes scopes_supported). */
  #scope(challenged: string[]): string[] {
    const configured = this.#options.settings?.scopes ?? [];
    return configured.length > 0 ? union(configured, challenged) : challenged;
  }

  /** A1 step-up: the scopes to ask for, or null when asking cannot help (already granted). */
  #stepUpScopes(scope: string | undefined): string[] | null {
    const asked = splitScopes(scope);
    const granted = this.#grant()?.scopes ?? [];
    if (asked.length === 0 || asked.every((s) => granted.includes(s))) return null;
    const scopes = union(this.#scope(granted), asked);
    const key = scopes.join(" ");
    return this.#prompted.has(key) || this.#ungranted.has(key) ? null : scopes;
  }

  async #discover(challenge: Challenge): Promise<void> {
    const info = await discoverOAuthServerInfo(this.serverUrl, {
      ...(challenge.resourceMetadataUrl
        ? { resourceMetadataUrl: challenge.resourceMetadataUrl }
        : {}),
      fetchFn: this.#base,
    });
    this.provider.saveDiscoveryState({
      ...info,
      ...(challenge.resourceMetadataUrl
        ? { resourceMetadataUrl: challenge.resourceMetadataUrl.href }
        : {}),
    });
  }

  /** `auth login`: what the server says without a token (its challenge), by one unauthenticated request. */
  async #probe(
    headers: Record<string, string> | undefined,
    sse: boolean,
  ): Promise<{ challenge: Challenge; answered: boolean }> {
    const h = new Headers(headers);
    let response: Response;
    try {
      if (sse) {
        h.set("accept", "text/event-stream");
        response = await this.#base(this.serverUrl, { method: "GET", headers: h });
      } else {
        h.set("content-type", "application/json");
        h.set("accept", "application/json, text/event-stream");
        response = await this.#base(this.serverUrl, {
          method: "POST",
          headers: h,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 0,
            method: "initialize",
            params: {
              protocolVersion: "2025-06-18",
              capabilities: {},
              clientInfo: { name: "toolledger", version: "0" },
            },
          }),
        });
      }
    } catch (error) {
      throw new AuthorizationFailedError(
        "unreachable",
        `${this.name} (${this.serverUrl}) could not be reached: ${failureOf(error, this.#redactor).message}`,
      );
    }
    const challenge =
      response.status === 401 || response.status === 403
        ? extractWWWAuthenticateParams(response)
        : {};
    await discard(response);
    return { challenge, answered: response.ok };
  }

  #grant(): GrantRecord | null {
    if (this.#cache === undefined) this.#reload();
    return this.#cache ?? null;
  }

  #reload(): GrantRecord | null {
    this.#cache = this.provider.grant();
    return this.#cache;
  }

  #changedAt(): number {
    const issuer = this.provider.issuer;
    return issuer ? this.#options.store.changedAt(this.serverUrl, issuer) : 0;
  }

  /**
   * A2: due for a refresh: within the margin of its expiry (60 s), or in the last half of its
   * life when it lives shorter than twice that.
   */
  #expiring(grant: GrantRecord): boolean {
    if (grant.expiresAt === null) return false;
    const lifetime = grant.obtainedAt === null ? Infinity : grant.expiresAt - grant.obtainedAt;
    const margin = Math.min(this.#options.refreshMarginMs ?? 60_000, lifetime / 2);
    return grant.expiresAt - this.#now() <= margin;
  }

  #authorizedActivity(grant: GrantRecord): void {
    this.#activity({
      kind: "authorized",
      issuer: grant.issuer,
      scopes: grant.scopes,
      expiresAt: grant.expiresAt === null ? null : new Date(grant.expiresAt).toISOString(),
      grant: grant.grant ?? "authorization_code",
      client: grant.clientKind ?? (this.#options.settings?.clientId ? "configured" : "dynamic"),
    });
  }

  #activity(activity: OAuthActivity): void {
    const a =
      activity.kind === "failed"
        ? { ...activity, message: this.#redactor.redact(activity.message) }
        : activity;
    this.#options.onActivity?.(a);
  }

  #secret(value: string): void {
    if (value.length < 4 || this.#secrets.has(value)) return;
    this.#secrets.add(value);
    this.#redactor = this.#redactor.with(Redactor.forValues([value]));
    this.#options.onSecret?.(value);
  }
}

export type Challenge = ReturnType<typeof extractWWWAuthenticateParams>;

function splitScopes(scope: string | undefined): string[] {
  return (scope ?? "").split(/\s+/).filter(Boolean);
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

function quote(name: string): string {
  return /^[\w.@%+=:,/-]+$/.test(name) ? name : `'${name.replaceAll("'", "'\\''")}'`;
}
