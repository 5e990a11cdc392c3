import type { ServerConfig } from "../serverConfig.js";
import type { DoctorFinding } from "./doctorFinding.js";

/**
 * The OAuth hook of `toolledger doctor`. The OAuth client and its token store (issue 22, the
 * `auth` commands) are being built beside this: when they land, this reports each OAuth
 * server's state from the token store (issue 22's `auth status`: issuer, scopes, expiry, last
 * refresh, never a token) and `oauthAdvice` names `toolledger auth login <server>`. Until
 * then it says that OAuth was not checked.
 */
export async function checkOAuth(): Promise<DoctorFinding[]> {
  return [
    {
      check: "oauth",
      subject: "OAuth tokens",
      status: "skip",
      message: "not checked: this toolledger has no OAuth token store yet",
    },
  ];
}

/** What to do when a server refused the connection for want of authorization, else undefined. */
export function oauthAdvice(server: ServerConfig, message: string): string | undefined {
  if (!/\b401\b|unauthori[sz]ed|invalid_token|www-authenticate/i.test(message)) return undefined;
  return `${server.name} wants authorization: give its token in the config's headers (an "Authorization" header, expanded from a variable), or use a host that runs its OAuth flow; this toolledger cannot authorize it`;
}
