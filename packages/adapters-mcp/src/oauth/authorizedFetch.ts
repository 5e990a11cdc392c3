import type { FetchLike } from "@modelcontextprotocol/client";
import { extractWWWAuthenticateParams } from "@modelcontextprotocol/client";
import type { Challenge } from "./authorizationTypes.js";

/** What the transport's fetch asks of a server's authorizer. */
export interface FetchAuthority {
  /** The server's origin: the only one a token is sent to. */
  origin: string;
  /** The fetch underneath. */
  base: FetchLike;
  /** The token to send now (refreshed first when due), if any. */
  accessToken(): Promise<string | undefined>;
  /** After a 401: a renewed token; throws when the user must authorize. */
  after401(rejected: string | undefined, challenge: Challenge): Promise<string | undefined>;
  /** A token just renewed, refused at once: the error (asking again would loop). */
  refusedFresh(): Error;
  /** 403 insufficient_scope: the error of a step-up, or null to pass the 403 on. */
  insufficientScope(challenge: Challenge, held: string | undefined): Promise<Error | null>;
}

/**
 * A1/A2, the fetch of a server's transport (streamable HTTP or SSE): the bearer token on
 * requests to the server's own origin (never elsewhere; a static Authorization header of the
 * config is the user's scheme and is left alone), one renewal and retry on 401, step-up on
 * 403 `insufficient_scope`.
 */
export function authorizedFetch(a: FetchAuthority): FetchLike {
  const send = (
    input: string | URL,
    init: RequestInit | undefined,
    headers: Headers,
    token: string | undefined,
  ): Promise<Response> => {
    if (token === undefined) return a.base(input, init);
    const withToken = new Headers(headers);
    withToken.set("authorization", `Bearer ${token}`);
    return a.base(input, { ...init, headers: withToken });
  };
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if (new URL(String(input)).origin !== a.origin || headers.has("authorization"))
      return a.base(input, init);
    let token = await a.accessToken();
    let response = await send(input, init, headers, token);
    if (response.status === 401) {
      const challenge = extractWWWAuthenticateParams(response);
      await discard(response);
      token = await a.after401(token, challenge);
      response = await send(input, init, headers, token);
      if (response.status === 401) {
        await discard(response);
        throw a.refusedFresh();
      }
    }
    if (response.status === 403) {
      const challenge = extractWWWAuthenticateParams(response);
      if (challenge.error === "insufficient_scope") {
        const stepUp = await a.insufficientScope(challenge, token);
        if (stepUp) {
          await discard(response);
          throw stepUp;
        }
      }
    }
    return response;
  };
}

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}
