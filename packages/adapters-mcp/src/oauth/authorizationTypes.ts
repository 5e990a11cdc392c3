import type { extractWWWAuthenticateParams, FetchLike } from "@modelcontextprotocol/client";
import type { OAuthSettings } from "./oauthSettings.js";
import type { BrowserOutcome } from "./openBrowser.js";
import type { ClientKind, OAuthTokenStore } from "./tokenStore.js";

/** What a 401 or 403 said: its resource metadata URL, the scope it asks for, the error. */
export type Challenge = ReturnType<typeof extractWWWAuthenticateParams>;

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
