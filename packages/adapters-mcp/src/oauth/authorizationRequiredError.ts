/**
 * A4: a server needs the user to authorize toolledger (no stored token does). Thrown from the
 * transports' fetch, so a connection attempt or a call fails with what to do; `authorized`
 * settles when a token arrives (the browser step completed, or `toolledger auth login` ran in
 * another terminal), so the host can try again then.
 */
export class AuthorizationRequiredError extends Error {
  /** The extension's display name. */
  readonly server: string;
  /** Resolves once a usable token is stored; never rejects. */
  readonly authorized: Promise<void>;
  /** A browser step (or a printed URL) is waiting for the user right now. */
  readonly prompting: boolean;

  constructor(server: string, message: string, authorized: Promise<void>, prompting: boolean) {
    super(message);
    this.name = "AuthorizationRequiredError";
    this.server = server;
    this.authorized = authorized;
    this.prompting = prompting;
  }
}

/** An authorization server refused or failed (a refresh that cannot be retried now, a bad client). */
export class AuthorizationFailedError extends Error {
  /** The OAuth error code (`invalid_client`, `access_denied`, …) or toolledger's (`unreachable`, `timeout`). */
  readonly oauthError: string;

  constructor(oauthError: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AuthorizationFailedError";
    this.oauthError = oauthError;
  }
}

/** The AuthorizationRequiredError in an error's cause chain, if any. */
export function findAuthorizationRequired(error: unknown): AuthorizationRequiredError | null {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; depth++) {
    if (e instanceof AuthorizationRequiredError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}
