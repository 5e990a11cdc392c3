import { type OAuthServerStatus, readOAuthStatus } from "@toolledger/adapters-mcp";
import type { ServerConfig } from "../config/serverConfig.js";
import type { Deps } from "../program/deps.js";
import { userTokenStore } from "../serve/authTarget.js";
import type { DoctorFinding } from "./doctorFinding.js";

/**
 * A2 in `toolledger doctor`: each remote server's OAuth state from the user's token store, as
 * `auth status` reads it (issuer, scopes, expiry; never a token). Reads the store only: no
 * network, no refresh.
 */
export async function checkOAuth(
  deps: Pick<Deps, "env" | "home" | "now">,
): Promise<DoctorFinding[]> {
  let statuses: OAuthServerStatus[];
  try {
    statuses = readOAuthStatus(userTokenStore(deps), { now: deps.now().getTime() });
  } catch (error) {
    return [
      {
        check: "oauth",
        subject: "OAuth tokens",
        status: "fail",
        message: `the token store cannot be read: ${(error as Error).message}`,
        fix: "run `toolledger auth logout <server>` for the server it names, then `toolledger auth login <server>`",
      },
    ];
  }
  if (statuses.length === 0)
    return [
      {
        check: "oauth",
        subject: "OAuth tokens",
        status: "skip",
        message: "no remote server authorized yet (toolledger signs in at a server's first 401)",
      },
    ];
  return statuses.flatMap((s) =>
    (s.grants.length === 0 ? [null] : s.grants).map((g): DoctorFinding => {
      const subject = `OAuth ${s.serverUrl}`;
      if (!g || g.state === "no_token")
        return {
          check: "oauth",
          subject,
          status: "warn",
          message: `not authorized${g ? ` at ${g.issuer}` : ""}`,
          fix: "run `toolledger auth login <server>` (or let `serve` ask at its first start)",
        };
      const scopes = g.scopes.length > 0 ? g.scopes.join(" ") : "no scope";
      if (g.state === "expired" && !g.refreshable)
        return {
          check: "oauth",
          subject,
          status: "warn",
          message: `the token from ${g.issuer} expired ${g.expiresAt} and cannot be refreshed (${scopes})`,
          fix: "run `toolledger auth login <server>` again",
        };
      return {
        check: "oauth",
        subject,
        status: "ok",
        message: `authorized at ${g.issuer} (${scopes}); ${g.state === "expired" ? "expired, renews with its refresh token at the next use" : g.expiresAt ? `valid until ${g.expiresAt}` : "no expiry given"}`,
      };
    }),
  );
}

/** What to do when a server refused the connection for want of authorization, else undefined. */
export function oauthAdvice(server: ServerConfig, message: string): string | undefined {
  if (!/\b401\b|unauthori[sz]ed|invalid_token|www-authenticate/i.test(message)) return undefined;
  return `${server.name} wants authorization: run \`toolledger auth login ${server.name}\` (or give its token in the config's headers, an "Authorization" header expanded from a variable)`;
}
