// A1–A4: toolledger as an OAuth 2.1 client of remote MCP servers (the room's public face).
export {
  AuthorizationFailedError,
  AuthorizationRequiredError,
  findAuthorizationRequired,
} from "./authorizationRequiredError.js";
export type { StepOutcome } from "./authorizationStep.js";
export type {
  AuthorizationPrompt,
  OAuthActivity,
  ServerAuthorizerOptions,
} from "./authorizationTypes.js";
export { CALLBACK_PATH } from "./callbackListener.js";
export { activityCommand, hostAuthorizer, type OAuthRuntime } from "./oauthRuntime.js";
export { type OAuthSettings, oauthSecretValues } from "./oauthSettings.js";
export { type OAuthGrantStatus, type OAuthServerStatus, readOAuthStatus } from "./oauthStatus.js";
export { type BrowserOutcome, browserCommands, openBrowser } from "./openBrowser.js";
export type { RevokeOutcome } from "./revokeGrant.js";
export { ServerAuthorizer } from "./serverAuthorizer.js";
export {
  type ClientKind,
  type GrantRecord,
  normalizeServerUrl,
  OAuthStoreError,
  OAuthTokenStore,
  type ServerRecord,
} from "./tokenStore.js";
