import { z } from "zod";
import { EVENT_SCHEMA_VERSION } from "../events/eventSchemaVersion.js";
import { origin } from "../events/origin.js";

// A1–A4: what a host records of its OAuth authorizations with remote servers. Never a token,
// a code, a verifier or a client secret: issuers, scopes, expiry and error codes only.

const v = z.literal(EVENT_SCHEMA_VERSION);
const at = z.string().optional();
/** The extension's key (R1). */
const extension = z.string();
/** The authorization server (its issuer URL); null before discovery found it. */
const issuer = z.string().nullable().default(null);
const scopes = z.array(z.string()).default([]);
/** When the access token expires (ISO-8601); null when the server did not say. */
const expiresAt = z.string().nullable().default(null);

/** How a grant's client identifies itself: configured (`oauth.clientId`), a metadata document URL, or registered dynamically. */
export const OAuthClientKindSchema = z.string().min(1);

/** A4: the server answered 401 (or 403 insufficient_scope) and no stored token does. */
export const OAuthAuthorizationRequiredSchema = z.object({
  type: z.literal("OAuthAuthorizationRequired"),
  v,
  at,
  extension,
  issuer,
  /** The scopes toolledger asks for (from WWW-Authenticate, else scopes_supported, else none). */
  scopes,
  /** Why: `no_token`, `rejected`, `insufficient_scope`, `invalid_grant`, `expired`. */
  reason: z.string(),
  /** How the user is asked: `browser`, `printed` (the URL on stderr), `none` (run `toolledger auth login`). */
  prompt: z.string().default("none"),
  origin,
});
export type OAuthAuthorizationRequired = z.infer<typeof OAuthAuthorizationRequiredSchema>;

/** A1: a grant completed: an authorization code exchanged, or client credentials. */
export const OAuthAuthorizedSchema = z.object({
  type: z.literal("OAuthAuthorized"),
  v,
  at,
  extension,
  issuer: z.string(),
  /** The scopes granted (the token response's, else those asked for). */
  scopes,
  expiresAt,
  /** `authorization_code` or `client_credentials`. */
  grant: z.string(),
  /** `configured`, `metadata_document` or `dynamic`. */
  client: OAuthClientKindSchema,
  origin,
});
export type OAuthAuthorized = z.infer<typeof OAuthAuthorizedSchema>;

/** A2: a refresh token bought a new access token before the old one expired (or after a rejection). */
export const OAuthTokenRefreshedSchema = z.object({
  type: z.literal("OAuthTokenRefreshed"),
  v,
  at,
  extension,
  issuer: z.string(),
  scopes,
  expiresAt,
  origin,
});
export type OAuthTokenRefreshed = z.infer<typeof OAuthTokenRefreshedSchema>;

/** A1/A2: an authorization or a refresh failed; `error` is the OAuth error code (or toolledger's: `timeout`, `unreachable`). */
export const OAuthAuthorizationFailedSchema = z.object({
  type: z.literal("OAuthAuthorizationFailed"),
  v,
  at,
  extension,
  issuer,
  error: z.string(),
  /** What happened and what to do, secret-free. */
  message: z.string().nullable().default(null),
  origin,
});
export type OAuthAuthorizationFailed = z.infer<typeof OAuthAuthorizationFailedSchema>;

export type OAuthEvent =
  | OAuthAuthorizationRequired
  | OAuthAuthorized
  | OAuthTokenRefreshed
  | OAuthAuthorizationFailed;

/** The OAuth event schemas, for the event union (one place to add a kind). */
export const OAUTH_EVENT_SCHEMAS = [
  OAuthAuthorizationRequiredSchema,
  OAuthAuthorizedSchema,
  OAuthTokenRefreshedSchema,
  OAuthAuthorizationFailedSchema,
] as const;

// ---- commands -------------------------------------------------------------------------

const optionalIssuer = z.string().nullable().optional();

export const RequireAuthorizationCommandSchema = z.strictObject({
  type: z.literal("RequireAuthorization"),
  at,
  extension,
  issuer: optionalIssuer,
  scopes: z.array(z.string()).optional(),
  reason: z.string().min(1),
  prompt: z.enum(["browser", "printed", "none"]).optional(),
});

export const RecordAuthorizationCommandSchema = z.strictObject({
  type: z.literal("RecordAuthorization"),
  at,
  extension,
  issuer: z.string().min(1),
  scopes: z.array(z.string()).optional(),
  expiresAt: z.string().nullable().optional(),
  grant: z.enum(["authorization_code", "client_credentials"]),
  client: z.enum(["configured", "metadata_document", "dynamic"]),
});

export const RecordTokenRefreshCommandSchema = z.strictObject({
  type: z.literal("RecordTokenRefresh"),
  at,
  extension,
  issuer: z.string().min(1),
  scopes: z.array(z.string()).optional(),
  expiresAt: z.string().nullable().optional(),
});

export const RecordAuthorizationFailureCommandSchema = z.strictObject({
  type: z.literal("RecordAuthorizationFailure"),
  at,
  extension,
  issuer: optionalIssuer,
  error: z.string().min(1),
  message: z.string().optional(),
});

/** The OAuth command schemas, for the command union. */
export const OAUTH_COMMAND_SCHEMAS = [
  RequireAuthorizationCommandSchema,
  RecordAuthorizationCommandSchema,
  RecordTokenRefreshCommandSchema,
  RecordAuthorizationFailureCommandSchema,
] as const;

export type OAuthCommand =
  | z.output<typeof RequireAuthorizationCommandSchema>
  | z.output<typeof RecordAuthorizationCommandSchema>
  | z.output<typeof RecordTokenRefreshCommandSchema>
  | z.output<typeof RecordAuthorizationFailureCommandSchema>;
