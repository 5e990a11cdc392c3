import type { FetchLike } from "@modelcontextprotocol/client";
import type { Redactor } from "../redaction/redactor.js";
import {
  AuthorizationFailedError,
  AuthorizationRequiredError,
} from "./authorizationRequiredError.js";
import {
  type AuthorizationStep,
  type StepOutcome,
  startAuthorizationStep,
} from "./authorizationStep.js";
import type {
  AuthorizationPrompt,
  Challenge,
  OAuthActivity,
  ServerAuthorizerOptions,
} from "./authorizationTypes.js";
import { AuthorizationWait } from "./authorizationWait.js";
import { authorizedActivity } from "./authorizedActivity.js";
import { authorizedFetch } from "./authorizedFetch.js";
import { loginCommand } from "./loginCommand.js";
import { logoutServer } from "./logoutServer.js";
import { failureOf } from "./oauthFailure.js";
import { selectScopes, splitScopes, stepUpScopes } from "./oauthScopes.js";
import { oauthSecretValues } from "./oauthSettings.js";
import { probeForLogin } from "./probeForLogin.js";
import type { RevokeOutcome } from "./revokeGrant.js";
import { SecretCollector } from "./secretCollector.js";
import { StoreOAuthProvider } from "./storeProvider.js";
import { TokenKeeper } from "./tokenKeeper.js";
import { type GrantRecord, normalizeServerUrl } from "./tokenStore.js";

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
  readonly fetch: FetchLike;
  readonly #options: ServerAuthorizerOptions;
  readonly #base: FetchLike;
  readonly #now: () => number;
  readonly #secrets: SecretCollector;
  readonly #keeper: TokenKeeper;
  #step: AuthorizationStep | null = null;
  readonly #prompted = new Set<string>();
  /** Scope sets an authorization did not grant in full: a step-up never asks for them again. */
  readonly #ungranted = new Set<string>();
  /** While authorization is required: settles when a token arrives. */
  readonly #wait: AuthorizationWait;
  #closed = false;

  constructor(options: ServerAuthorizerOptions) {
    this.#options = options;
    this.name = options.name;
    this.serverUrl = normalizeServerUrl(options.serverUrl);
    const origin = new URL(this.serverUrl).origin;
    this.#base = options.fetch ?? ((url, init) => fetch(url, init));
    this.#now = options.now ?? Date.now;
    this.#secrets = new SecretCollector(options.onSecret);
    for (const s of oauthSecretValues(options.settings)) this.#secrets.add(s);
    this.#wait = new AuthorizationWait({
      intervalMs: options.watchIntervalMs ?? 1000,
      changedAt: () => this.#changedAt(),
      look: () => this.#look(),
    });
    this.provider = new StoreOAuthProvider({
      serverUrl: this.serverUrl,
      settings: options.settings,
      store: options.store,
      onSecret: (v) => this.#secrets.add(v),
      now: this.#now,
    });
    this.fetch = authorizedFetch({
      origin,
      base: this.#base,
      accessToken: () => this.#keeper.accessToken(),
      after401: (rejected, challenge) => this.#after401(rejected, challenge),
      refusedFresh: () => this.#refusedFresh(),
      insufficientScope: (challenge, held) => this.#insufficientScope(challenge, held),
    });
    this.#keeper = new TokenKeeper({
      serverUrl: this.serverUrl,
      provider: this.provider,
      store: options.store,
      fetch: this.#base,
      now: this.#now,
      refreshMarginMs: options.refreshMarginMs ?? 60_000,
      redactor: () => this.#secrets.redactor,
      activity: (a) => this.#activity(a),
      renewed: (grant, how) => {
        if (how === "refreshed") this.#settle();
        else if (how === "adopted") this.#adopted(grant);
        else {
          this.#authorizedActivity(grant);
          this.#settle();
        }
      },
    });
  }

  /** Every secret this server's authorization has seen (tokens, codes, verifiers, client secrets). */
  get redactor(): Redactor {
    return this.#secrets.redactor;
  }

  /** Whether the user must act (no usable token) right now. */
  get required(): boolean {
    return this.#wait.active;
  }

  /** Resolves once a usable token is stored (at once when none is missing). */
  whenAuthorized(): Promise<void> {
    return this.#wait.done;
  }

  /** The command that authorizes this server from a terminal. */
  get loginCommand(): string {
    return this.#options.loginCommand ?? loginCommand(this.name);
  }

  /**
   * A1 (`toolledger auth login`): authorizes now, asking the user with `prompt` (or with
   * client credentials, asking no one), whatever is stored. Resolves with the outcome.
   */
  async login(
    prompt: AuthorizationPrompt,
    server: { headers?: Record<string, string>; sse?: boolean } = {},
  ): Promise<StepOutcome> {
    const probed = await probeForLogin(
      { name: this.name, url: this.serverUrl, ...server },
      {
        fetch: this.#base,
        redactor: this.#secrets.redactor,
        clientCredentials: this.provider.clientCredentials,
      },
    );
    if (!probed.ok) return probed;
    const { challenge } = probed;
    if (this.provider.clientCredentials) {
      try {
        await this.#keeper.clientCredentials(challenge, this.#scope(splitScopes(challenge.scope)));
        return { ok: true };
      } catch (error) {
        const f = failureOf(error, this.#secrets.redactor);
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
    const outcomes = await logoutServer({
      serverUrl: this.serverUrl,
      store: this.#options.store,
      provider: this.provider,
      fetch: this.#base,
      redactor: () => this.#secrets.redactor,
      secret: (v) => this.#secrets.add(v),
    });
    this.#keeper.forget();
    return outcomes;
  }

  /** Stops watching and abandons a browser step in progress. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wait.stop();
    await this.#step?.cancel();
  }

  // ---- the transport's fetch (authorizedFetch) --------------------------------------

  /** A token just renewed, refused at once: a failure, not another prompt. */
  #refusedFresh(): Error {
    const message = `${this.name} refused the token its authorization server just issued (HTTP 401); check that the server and its authorization server agree (audience, resource), then run \`${this.loginCommand}\``;
    this.#activity({
      kind: "failed",
      issuer: this.provider.issuer,
      error: "invalid_token",
      message,
    });
    return new AuthorizationFailedError("invalid_token", message);
  }

  /** A1 step-up: a new authorization for the scopes the 403 names (bounded), or null. */
  async #insufficientScope(challenge: Challenge, held: string | undefined): Promise<Error | null> {
    const scopes = this.#stepUpScopes(challenge.scope);
    return scopes ? this.#require("insufficient_scope", challenge, scopes, held) : null;
  }

  /** After a 401: a token renewed without the user, or the browser step (thrown). */
  async #after401(rejected: string | undefined, challenge: Challenge): Promise<string | undefined> {
    const scopes = this.#scope(splitScopes(challenge.scope));
    if (this.#step) throw this.requiredError();
    const renewed = await this.#keeper.renew(rejected, challenge);
    if (renewed !== undefined && renewed !== rejected) return renewed;
    const reason = this.#keeper.lastFailure ?? (rejected ? "rejected" : "no_token");
    throw await this.#require(reason, challenge, scopes, rejected);
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
    const entering = !this.#wait.active;
    this.#wait.enter(held);
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
      const f = failureOf(error, this.#secrets.redactor);
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
      redactor: () => this.#secrets.redactor,
      onSecret: (v) => this.#secrets.add(v),
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
        const grant = this.#keeper.reload();
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

  /** A token stored by another process (`toolledger auth login` in a terminal) ends the wait. */
  #look(): void {
    if (this.#closed) return;
    let grant: GrantRecord | null;
    try {
      grant = this.#keeper.reload();
    } catch {
      return;
    }
    const token = grant?.tokens?.access_token;
    if (!grant || token === undefined || token === this.#wait.held) return;
    if (grant.expiresAt !== null && grant.expiresAt <= this.#now()) return;
    this.#adopted(grant);
  }

  #adopted(grant: GrantRecord): void {
    if (!this.#wait.active) return;
    this.#authorizedActivity(grant);
    void this.#step?.cancel();
    this.#settle();
  }

  /** A token is there: the wait ends (once), the watch stops; a later need may ask the user again. */
  #settle(): void {
    this.#prompted.clear();
    this.#keeper.lastFailure = null;
    this.#wait.settle();
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

  #scope(challenged: string[]): string[] {
    return selectScopes(this.#options.settings?.scopes ?? [], challenged);
  }

  #stepUpScopes(scope: string | undefined): string[] | null {
    return stepUpScopes(scope, {
      configured: this.#options.settings?.scopes ?? [],
      granted: this.#keeper.grant()?.scopes ?? [],
      refused: (key) => this.#prompted.has(key) || this.#ungranted.has(key),
    });
  }

  #changedAt(): number {
    const issuer = this.provider.issuer;
    return issuer ? this.#options.store.changedAt(this.serverUrl, issuer) : 0;
  }

  #authorizedActivity(grant: GrantRecord): void {
    this.#activity(authorizedActivity(grant, !!this.#options.settings?.clientId));
  }

  #activity(activity: OAuthActivity): void {
    const a =
      activity.kind === "failed"
        ? { ...activity, message: this.#secrets.redactor.redact(activity.message) }
        : activity;
    this.#options.onActivity?.(a);
  }
}
