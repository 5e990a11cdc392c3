import type { FetchLike } from "@modelcontextprotocol/client";
import { auth, discoverOAuthServerInfo } from "@modelcontextprotocol/client";
import type { Redactor } from "../redaction/redactor.js";
import { AuthorizationFailedError } from "./authorizationRequiredError.js";
import type { Challenge, OAuthActivity } from "./authorizationTypes.js";
import { failureOf } from "./oauthFailure.js";
import { refreshGrant } from "./refreshGrant.js";
import type { StoreOAuthProvider } from "./storeProvider.js";
import type { GrantRecord, OAuthTokenStore } from "./tokenStore.js";

/**
 * A2: keeps one server's access token usable without the user: the grant as last read, a
 * refresh before it expires, and renewals one at a time per server and issuer across
 * processes (a token another process stored meanwhile, else a refresh, else client
 * credentials), under the store's lock.
 */
export class TokenKeeper {
  readonly #serverUrl: string;
  readonly #provider: StoreOAuthProvider;
  readonly #store: OAuthTokenStore;
  readonly #fetch: FetchLike;
  readonly #now: () => number;
  readonly #marginMs: number;
  readonly #redactor: () => Redactor;
  readonly #activity: (a: OAuthActivity) => void;
  /** A usable token arrived without the user (a refresh, another process, client credentials). */
  readonly #renewed: (grant: GrantRecord, how: "refreshed" | "adopted" | "granted") => void;
  /** The grant as last read (undefined: not read yet). */
  #cache: GrantRecord | null | undefined;
  #renewing: Promise<string | undefined> | null = null;
  /** The OAuth error of the last failed renewal (`invalid_grant`…), until a token arrives. */
  lastFailure: string | null = null;

  constructor(options: {
    serverUrl: string;
    provider: StoreOAuthProvider;
    store: OAuthTokenStore;
    fetch: FetchLike;
    now: () => number;
    refreshMarginMs: number;
    redactor: () => Redactor;
    activity: (a: OAuthActivity) => void;
    renewed: (grant: GrantRecord, how: "refreshed" | "adopted" | "granted") => void;
  }) {
    this.#serverUrl = options.serverUrl;
    this.#provider = options.provider;
    this.#store = options.store;
    this.#fetch = options.fetch;
    this.#now = options.now;
    this.#marginMs = options.refreshMarginMs;
    this.#redactor = options.redactor;
    this.#activity = options.activity;
    this.#renewed = options.renewed;
  }

  grant(): GrantRecord | null {
    if (this.#cache === undefined) this.reload();
    return this.#cache ?? null;
  }

  reload(): GrantRecord | null {
    this.#cache = this.#provider.grant();
    return this.#cache;
  }

  forget(): void {
    this.#cache = undefined;
  }

  /**
   * Due for a refresh: within the margin of its expiry (60 s), or in the last half of its
   * life when it lives shorter than twice that.
   */
  expiring(grant: GrantRecord): boolean {
    if (grant.expiresAt === null) return false;
    const lifetime = grant.obtainedAt === null ? Infinity : grant.expiresAt - grant.obtainedAt;
    return grant.expiresAt - this.#now() <= Math.min(this.#marginMs, lifetime / 2);
  }

  /** The stored access token, refreshed first when it is about to expire. */
  async accessToken(): Promise<string | undefined> {
    const grant = this.grant();
    const token = grant?.tokens?.access_token;
    if (!grant || token === undefined) return undefined;
    if (!this.expiring(grant)) return token;
    const expired = grant.expiresAt !== null && grant.expiresAt <= this.#now();
    try {
      const renewed = await this.renew(token, {});
      if (renewed !== undefined) return renewed;
    } catch (error) {
      // The authorization server is unreachable: a token that still works is used meanwhile.
      if (!expired) return token;
      throw error;
    }
    return expired ? undefined : token;
  }

  /** A new access token without the user (one renewal at a time); undefined when only the user can help. */
  renew(stale: string | undefined, challenge: Challenge): Promise<string | undefined> {
    if (this.#renewing) return this.#renewing;
    const renewing = this.#renewOnce(stale, challenge);
    this.#renewing = renewing;
    // Cleared once settled, by identity (an async function may settle before this line ran).
    const clear = () => {
      if (this.#renewing === renewing) this.#renewing = null;
    };
    renewing.then(clear, clear);
    return renewing;
  }

  async #renewOnce(stale: string | undefined, challenge: Challenge): Promise<string | undefined> {
    if (this.#provider.clientCredentials && !this.#provider.issuer) await this.discover(challenge);
    const issuer = this.#provider.issuer;
    if (!issuer) return undefined;
    return this.#store.lock(this.#serverUrl, issuer, async () => {
      const grant = this.reload();
      const token = grant?.tokens?.access_token;
      if (grant && token !== undefined && token !== stale && !this.expiring(grant)) {
        this.#renewed(grant, "adopted");
        return token;
      }
      if (this.#provider.clientCredentials) return this.clientCredentials(challenge, []);
      if (!grant?.tokens?.refresh_token) return undefined;
      const refreshed = await refreshGrant(this.#provider, grant, {
        fetch: this.#fetch,
        now: this.#now,
        redactor: this.#redactor,
      });
      const after = this.reload();
      if (refreshed.ok) {
        this.#activity({ kind: "refreshed", ...refreshed.activity });
        if (after) this.#renewed(after, "refreshed");
        return refreshed.token;
      }
      this.#activity({
        kind: "failed",
        issuer,
        error: refreshed.error,
        message: refreshed.message,
      });
      this.lastFailure = refreshed.error;
      if (refreshed.retryLater)
        throw new AuthorizationFailedError(refreshed.error, refreshed.message);
      return undefined;
    });
  }

  /** A1, machine to machine: a token for the configured client, no user involved. */
  async clientCredentials(challenge: Challenge, scopes: string[]): Promise<string> {
    const scope = scopes.length > 0 ? scopes.join(" ") : undefined;
    this.#provider.beginFlow({ redirectUri: null, scope });
    try {
      await auth(this.#provider, {
        serverUrl: this.#serverUrl,
        ...(scope ? { scope } : {}),
        ...(challenge.resourceMetadataUrl
          ? { resourceMetadataUrl: challenge.resourceMetadataUrl }
          : {}),
        fetchFn: this.#fetch,
      });
    } catch (error) {
      const f = failureOf(error, this.#redactor());
      this.#activity({
        kind: "failed",
        issuer: this.#provider.issuer,
        error: f.code,
        message: f.message,
      });
      throw new AuthorizationFailedError(f.code, f.message, { cause: error });
    } finally {
      this.#provider.showTokens();
    }
    const grant = this.reload();
    if (!grant?.tokens) throw new AuthorizationFailedError("no_token", "no token was stored");
    this.#renewed(grant, "granted");
    return grant.tokens.access_token;
  }

  /** RFC 9728 then RFC 8414 discovery (the SDK's, with its fallbacks), saved for this server. */
  async discover(challenge: Challenge): Promise<void> {
    const info = await discoverOAuthServerInfo(this.#serverUrl, {
      ...(challenge.resourceMetadataUrl
        ? { resourceMetadataUrl: challenge.resourceMetadataUrl }
        : {}),
      fetchFn: this.#fetch,
    });
    this.#provider.saveDiscoveryState({
      ...info,
      ...(challenge.resourceMetadataUrl
        ? { resourceMetadataUrl: challenge.resourceMetadataUrl.href }
        : {}),
    });
  }
}
