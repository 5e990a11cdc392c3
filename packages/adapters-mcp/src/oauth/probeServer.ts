import type { FetchLike } from "@modelcontextprotocol/client";
import { extractWWWAuthenticateParams } from "@modelcontextprotocol/client";
import type { Redactor } from "../redaction/redactor.js";
import { AuthorizationFailedError } from "./authorizationRequiredError.js";
import type { Challenge } from "./authorizationTypes.js";
import { failureOf } from "./oauthFailure.js";

/**
 * `auth login`: what a server says without a token (its challenge, and whether it answered at
 * all), by one unauthenticated request: an `initialize` POST, or the GET of an SSE stream.
 */
export async function probeServer(
  server: { name: string; url: string },
  options: {
    headers: Record<string, string> | undefined;
    sse: boolean;
    fetch: FetchLike;
    redactor: Redactor;
  },
): Promise<{ challenge: Challenge; answered: boolean }> {
  const h = new Headers(options.headers);
  let response: Response;
  try {
    if (options.sse) {
      h.set("accept", "text/event-stream");
      response = await options.fetch(server.url, { method: "GET", headers: h });
    } else {
      h.set("content-type", "application/json");
      h.set("accept", "application/json, text/event-stream");
      response = await options.fetch(server.url, {
        method: "POST",
        headers: h,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "toolledger", version: "0" },
          },
        }),
      });
    }
  } catch (error) {
    throw new AuthorizationFailedError(
      "unreachable",
      `${server.name} (${server.url}) could not be reached: ${failureOf(error, options.redactor).message}`,
    );
  }
  const challenge =
    response.status === 401 || response.status === 403
      ? extractWWWAuthenticateParams(response)
      : {};
  await discard(response);
  return { challenge, answered: response.ok };
}

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}
