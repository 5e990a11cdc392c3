import type { FetchLike } from "@modelcontextprotocol/client";
import { discoverOAuthProtectedResourceMetadata } from "@modelcontextprotocol/client";
import type { Redactor } from "../redaction/redactor.js";
import type { StepOutcome } from "./authorizationStep.js";
import type { Challenge } from "./authorizationTypes.js";
import { probeServer } from "./probeServer.js";

/**
 * A1 (`toolledger auth login`), before any step: the server's challenge, or the refusal
 * `not_required` when it lets an unauthenticated initialize through and names no
 * authorization server (client credentials log in whatever the server says).
 */
export async function probeForLogin(
  server: { name: string; url: string; headers?: Record<string, string>; sse?: boolean },
  options: { fetch: FetchLike; redactor: Redactor; clientCredentials: boolean },
): Promise<{ ok: true; challenge: Challenge } | (StepOutcome & { ok: false })> {
  const { challenge, answered } = await probeServer(
    { name: server.name, url: server.url },
    {
      headers: server.headers,
      sse: server.sse === true,
      fetch: options.fetch,
      redactor: options.redactor,
    },
  );
  if (answered && !options.clientCredentials) {
    // It let an unauthenticated initialize through: OAuth only if it names an authorization server.
    try {
      await discoverOAuthProtectedResourceMetadata(server.url, {}, options.fetch);
    } catch {
      return {
        ok: false,
        error: "not_required",
        message: `${server.name} answers without authorization and names no authorization server (no protected resource metadata): there is nothing to log in to`,
      };
    }
  }
  return { ok: true, challenge };
}
