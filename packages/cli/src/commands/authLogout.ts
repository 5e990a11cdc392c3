import { normalizeServerUrl, ServerAuthorizer } from "@toolledger/adapters-mcp";
import type { Output } from "../output/output.js";
import { usageError } from "../program/cliError.js";
import { booleanOption, type ParsedArgs } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { remoteServer, userTokenStore } from "../serve/authTarget.js";

/** A2: `toolledger auth logout <server|url>`: revoke where the server supports it, then forget. */
export async function authLogout(
  { parsed, o }: { parsed: ParsedArgs; o: Output },
  deps: Deps,
): Promise<number> {
  const target = parsed.positionals[1];
  if (target === undefined)
    throw usageError("auth logout: name the server (or give its URL) to log out of", "auth");
  const byUrl = /^https?:\/\//.test(target);
  const server = byUrl ? null : remoteServer(parsed, deps, target, "logout").server;
  const url = normalizeServerUrl(server?.url ?? target);
  const name = server?.name ?? url;
  const store = userTokenStore(deps);
  const stored = store.list().find((s) => s.server.serverUrl === url);
  if (!stored) {
    o.note(`toolledger: nothing is stored for ${name} (${url}); nothing to log out of`);
    if (booleanOption(parsed, "json")) o.json({ server: name, url, revoked: [], forgotten: false });
    return EXIT.ok;
  }
  const authorizer = new ServerAuthorizer({
    name,
    serverUrl: url,
    ...(server?.oauth ? { settings: server.oauth } : {}),
    store,
    prompt: null,
  });
  const outcomes = await authorizer.logout();
  await authorizer.close();
  if (booleanOption(parsed, "json")) {
    o.json({ server: name, url, revoked: outcomes, forgotten: true });
    return EXIT.ok;
  }
  for (const r of outcomes) {
    const what = r.unsupported
      ? `${r.issuer} offers no token revocation: the tokens were only forgotten here`
      : `${r.revoked} token(s) revoked at ${r.issuer}`;
    o.note(`toolledger: ${name}: ${what}${r.errors.length > 0 ? ` (${r.errors.join("; ")})` : ""}`);
  }
  o.note(`toolledger: logged out of ${name}: its tokens and client registration are forgotten`);
  return EXIT.ok;
}
