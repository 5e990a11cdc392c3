// The authorization part of an extension's state: its own file, so the state's shape
// (`state.ts`) does not import the reducer that folds it.

/** A1–A4: where an extension's OAuth authorization stands, as its events say (never a secret). */
export interface ExtensionAuthorization {
  /** `required`: the user must authorize; `authorized`: a token is held; `failed`: the last attempt failed. */
  status: "required" | "authorized" | "failed";
  issuer: string | null;
  /** Granted scopes when authorized; the scopes asked for when required. */
  scopes: readonly string[];
  expiresAt: string | null;
  /** `authorization_code` or `client_credentials`, once authorized. */
  grant: string | null;
  /** `configured`, `metadata_document` or `dynamic`, once authorized. */
  client: string | null;
  /** Why authorization is required (`no_token`, `insufficient_scope`, …), or null. */
  reason: string | null;
  /** The OAuth error code of the last failure, and what it means; null after a success. */
  error: string | null;
  message: string | null;
  authorizedAt: string | null;
  lastRefreshAt: string | null;
  refreshes: number;
}
