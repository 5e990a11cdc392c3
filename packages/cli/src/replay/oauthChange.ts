import type { OAuthEvent, ToolledgerEvent } from "@toolledger/core";

/** A1–A4: what an OAuth event says, in replay's and the view's terms (never a secret: none is recorded). */
export interface OAuthChange {
  kind: "oauth";
  extension: string;
  event: "required" | "authorized" | "refreshed" | "failed";
  issuer: string | null;
  scopes: string[];
  expiresAt: string | null;
  /** Why it is required, the grant and client, or the OAuth error code and its message. */
  detail: string | null;
}

const OAUTH_TYPES = new Set<string>([
  "OAuthAuthorizationRequired",
  "OAuthAuthorized",
  "OAuthTokenRefreshed",
  "OAuthAuthorizationFailed",
]);

export function isOAuthEvent(event: { type: string }): event is OAuthEvent {
  return OAUTH_TYPES.has(event.type);
}

/** The change an OAuth event records, or null for any other event. */
export function oauthChange(event: ToolledgerEvent): OAuthChange | null {
  if (!isOAuthEvent(event)) return null;
  const base = { kind: "oauth" as const, extension: event.extension, issuer: event.issuer ?? null };
  switch (event.type) {
    case "OAuthAuthorizationRequired":
      return {
        ...base,
        event: "required",
        scopes: event.scopes,
        expiresAt: null,
        detail: `${event.reason}${event.prompt === "none" ? "" : `, asked in the ${event.prompt === "browser" ? "browser" : "printed URL"}`}`,
      };
    case "OAuthAuthorized":
      return {
        ...base,
        event: "authorized",
        scopes: event.scopes,
        expiresAt: event.expiresAt,
        detail: `${event.grant}, ${event.client} client`,
      };
    case "OAuthTokenRefreshed":
      return {
        ...base,
        event: "refreshed",
        scopes: event.scopes,
        expiresAt: event.expiresAt,
        detail: null,
      };
    case "OAuthAuthorizationFailed":
      return {
        ...base,
        event: "failed",
        scopes: [],
        expiresAt: null,
        detail: `${event.error}${event.message ? `: ${event.message}` : ""}`,
      };
  }
}

/** One line for an OAuth change (replay and the view share it). */
export function describeOAuthChange(c: OAuthChange): string {
  const scopes = c.scopes.length > 0 ? ` scopes ${c.scopes.join(" ")}` : "";
  const issuer = c.issuer ? ` at ${c.issuer}` : "";
  switch (c.event) {
    case "required":
      return `${c.extension} needs OAuth authorization${issuer}${scopes ? ` (${scopes.trim()})` : ""}: ${c.detail ?? ""}`;
    case "authorized":
      return `${c.extension} authorized${issuer}:${scopes || " no scopes"}${c.expiresAt ? `, token until ${c.expiresAt}` : ""} (${c.detail ?? ""})`;
    case "refreshed":
      return `${c.extension}'s token refreshed${issuer}${c.expiresAt ? `, until ${c.expiresAt}` : ""}`;
    case "failed":
      return `${c.extension}'s authorization failed${issuer}: ${c.detail ?? ""}`;
  }
}
