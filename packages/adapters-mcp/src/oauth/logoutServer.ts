import type { FetchLike } from "@modelcontextprotocol/client";
import type { Redactor } from "../redaction/redactor.js";
import { type RevokeOutcome, revokeGrant } from "./revokeGrant.js";
import type { StoreOAuthProvider } from "./storeProvider.js";
import type { OAuthTokenStore } from "./tokenStore.js";

/**
 * A2 (`toolledger auth logout`): revokes every grant of one server where its authorization
 * server supports revocation, then forgets the server in the store (tokens, registrations,
 * discovery). The tokens are handed to `secret` before they are sent anywhere.
 */
export async function logoutServer(options: {
  serverUrl: string;
  store: OAuthTokenStore;
  provider: StoreOAuthProvider;
  fetch: FetchLike;
  redactor: () => Redactor;
  secret: (value: string) => void;
}): Promise<RevokeOutcome[]> {
  const { store, serverUrl } = options;
  const entry = store.list().find((s) => s.server.serverUrl === serverUrl);
  const outcomes: RevokeOutcome[] = [];
  for (const grant of entry?.grants ?? []) {
    for (const t of [grant.tokens?.access_token, grant.tokens?.refresh_token])
      if (t) options.secret(t);
    outcomes.push(
      await revokeGrant(options.provider, grant, {
        fetch: options.fetch,
        redactor: options.redactor,
      }),
    );
  }
  store.remove(serverUrl);
  return outcomes;
}
