import { OAuthError } from "@modelcontextprotocol/client";
import type { Redactor } from "../redaction/redactor.js";
import { AuthorizationFailedError } from "./authorizationRequiredError.js";

/** The longest part of an authorization server's own text quoted in a message. */
const QUOTED_CHARS = 400;

/**
 * A1/A3: what went wrong in an OAuth exchange, as an error code for the event and a
 * secret-free sentence for the user (redacted before it is cut; an error body may quote a
 * code or a token back).
 */
export function failureOf(error: unknown, redactor: Redactor): { code: string; message: string } {
  if (error instanceof AuthorizationFailedError)
    return { code: error.oauthError, message: redactor.head(error.message, QUOTED_CHARS) };
  if (error instanceof OAuthError) {
    const code = error.code || "server_error";
    const said = error.message ? `: ${redactor.head(error.message, QUOTED_CHARS)}` : "";
    return { code, message: `the authorization server answered ${code}${said}` };
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/does not support dynamic client registration/.test(message)) {
    return {
      code: "registration_unsupported",
      message:
        "the authorization server offers no dynamic client registration: register toolledger with it (redirect URI http://127.0.0.1:<port>/callback) and set oauth.clientId (and oauth.clientSecret, oauth.callbackPort) in the config",
    };
  }
  if (error instanceof TypeError && /fetch failed/.test(message)) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return {
      code: "unreachable",
      message: `the authorization server could not be reached${cause ? ` (${cause})` : ""}`,
    };
  }
  if (error instanceof Error && error.name === "ZodError")
    return {
      code: "invalid_metadata",
      message: "the authorization server sent malformed metadata or a malformed token response",
    };
  return { code: "error", message: redactor.head(message, QUOTED_CHARS) };
}
