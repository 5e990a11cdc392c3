import type { FetchLike } from "@modelcontextprotocol/client";
import type { Command } from "@toolledger/core";
import type { ExtensionConfig } from "../extensionConfig.js";
import type { AuthorizationPrompt, OAuthActivity } from "./authorizationTypes.js";
import { ServerAuthorizer } from "./serverAuthorizer.js";
import type { OAuthTokenStore } from "./tokenStore.js";

/**
 * A1–A4: how a host authorizes its remote servers: where tokens are stored, how the user is
 * asked (serve: the browser step, once per server and scope set; other commands: never,
 * the error says to run `toolledger auth login`).
 */
export interface OAuthRuntime {
  store: OAuthTokenStore;
  prompt: AuthorizationPrompt | null;
  /** The command that authorizes a server from a terminal (e.g. with the config's path). */
  loginCommand?: (name: string) => string;
  fetch?: FetchLike;
  authorizationTimeoutMs?: number;
  refreshMarginMs?: number;
  watchIntervalMs?: number;
}

/**
 * The OAuth client of one remote server of a host: its activity becomes the registry's OAuth
 * events (A4), its secrets join the host's Redactor (A3). Null for a stdio server.
 */
export function hostAuthorizer(
  runtime: OAuthRuntime | undefined,
  config: ExtensionConfig,
  key: string,
  hooks: { record: (command: Command) => void; secret: (value: string) => void },
): ServerAuthorizer | null {
  if (!runtime || config.type === "stdio") return null;
  return new ServerAuthorizer({
    name: config.name,
    serverUrl: config.url,
    ...(config.oauth ? { settings: config.oauth } : {}),
    store: runtime.store,
    prompt: runtime.prompt,
    ...(runtime.loginCommand ? { loginCommand: runtime.loginCommand(config.name) } : {}),
    ...(runtime.fetch ? { fetch: runtime.fetch } : {}),
    ...(runtime.authorizationTimeoutMs === undefined
      ? {}
      : { authorizationTimeoutMs: runtime.authorizationTimeoutMs }),
    ...(runtime.refreshMarginMs === undefined ? {} : { refreshMarginMs: runtime.refreshMarginMs }),
    ...(runtime.watchIntervalMs === undefined ? {} : { watchIntervalMs: runtime.watchIntervalMs }),
    onSecret: hooks.secret,
    onActivity: (activity) => hooks.record(activityCommand(key, activity)),
  });
}

/** A4: the registry command that records an authorizer's activity. */
export function activityCommand(extension: string, a: OAuthActivity): Command {
  switch (a.kind) {
    case "required":
      return {
        type: "RequireAuthorization",
        extension,
        issuer: a.issuer,
        scopes: a.scopes,
        reason: a.reason,
        prompt: a.prompt,
      };
    case "authorized":
      return {
        type: "RecordAuthorization",
        extension,
        issuer: a.issuer,
        scopes: a.scopes,
        expiresAt: a.expiresAt,
        grant: a.grant,
        client: a.client,
      };
    case "refreshed":
      return {
        type: "RecordTokenRefresh",
        extension,
        issuer: a.issuer,
        scopes: a.scopes,
        expiresAt: a.expiresAt,
      };
    case "failed":
      return {
        type: "RecordAuthorizationFailure",
        extension,
        issuer: a.issuer,
        error: a.error,
        message: a.message,
      };
  }
}
