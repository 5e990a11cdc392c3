import {
  normalizeServerUrl,
  type OAuthServerStatus,
  readOAuthStatus,
} from "@toolledger/adapters-mcp";
import { CONFIG_ENV, loadConfig, resolveConfigPath } from "../config/loadConfig.js";
import { formatTable } from "../output/formatTable.js";
import { type Output, shortTime } from "../output/output.js";
import { booleanOption, type ParsedArgs, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { userTokenStore } from "../serve/authTarget.js";

interface Row {
  server: string;
  url: string;
  issuer: string | null;
  state: string;
  scopes: string[];
  expiresAt: string | null;
  lastRefreshAt: string | null;
  refreshable: boolean;
  client: string | null;
}

/**
 * A2: `toolledger auth status [server]`: each server's OAuth state (issuer, scopes, expiry,
 * last refresh), never a token. With a config, its remote servers by name, authorized or not.
 */
export async function authStatus(
  { parsed, o }: { parsed: ParsedArgs; o: Output },
  deps: Deps,
): Promise<number> {
  const only = parsed.positionals[1];
  const names = configNames(parsed, deps);
  const statuses = readOAuthStatus(userTokenStore(deps), { now: deps.now().getTime() });
  const rows: Row[] = statuses.flatMap((s) => rowsOf(s, names.get(s.serverUrl) ?? s.serverUrl));
  for (const [url, name] of names)
    if (!statuses.some((s) => s.serverUrl === url))
      rows.push({
        server: name,
        url,
        issuer: null,
        state: "not authorized",
        scopes: [],
        expiresAt: null,
        lastRefreshAt: null,
        refreshable: false,
        client: null,
      });
  const shown =
    only === undefined
      ? rows
      : rows.filter((r) => r.server === only || r.url === normalizeServerUrl(only));
  if (booleanOption(parsed, "json")) {
    o.json(shown);
    return EXIT.ok;
  }
  if (shown.length === 0) {
    o.note(
      `toolledger: no OAuth state${only === undefined ? "" : ` for ${only}`}; authorize a server with \`toolledger auth login <server> --config <file>\``,
    );
    return EXIT.ok;
  }
  o.data(
    formatTable(
      shown.map((r) => [
        r.server,
        r.state,
        r.issuer ?? "",
        r.scopes.join(" "),
        shortTime(r.expiresAt ?? undefined),
        shortTime(r.lastRefreshAt ?? undefined),
        r.refreshable ? "yes" : "no",
      ]),
      {
        header: ["SERVER", "STATE", "ISSUER", "SCOPES", "EXPIRES", "LAST REFRESH", "REFRESHABLE"],
        styleHeader: o.out.bold,
      },
    ),
  );
  return EXIT.ok;
}

function rowsOf(s: OAuthServerStatus, server: string): Row[] {
  if (s.grants.length === 0)
    return [
      {
        server,
        url: s.serverUrl,
        issuer: s.issuer,
        state: "not authorized",
        scopes: [],
        expiresAt: null,
        lastRefreshAt: null,
        refreshable: false,
        client: null,
      },
    ];
  return s.grants.map((g) => ({
    server,
    url: s.serverUrl,
    issuer: g.issuer,
    state: g.issuer === s.issuer ? g.state : `${g.state} (an earlier issuer)`,
    scopes: g.scopes,
    expiresAt: g.expiresAt,
    lastRefreshAt: g.lastRefreshAt,
    refreshable: g.refreshable,
    client: g.client,
  }));
}

/** The config's remote servers by URL (only when a config is given by flag or environment). */
function configNames(parsed: ParsedArgs, deps: Deps): Map<string, string> {
  const flag = stringOption(parsed, "config");
  if (flag === undefined && !deps.env[CONFIG_ENV]) return new Map();
  const config = loadConfig(resolveConfigPath(flag, deps.env, deps.home, deps.cwd), {
    ...deps,
    structureOnly: false,
  });
  const out = new Map<string, string>();
  for (const s of config.servers)
    if ((s.kind === "streamable_http" || s.kind === "sse") && s.url)
      out.set(normalizeServerUrl(s.url), s.name);
  return out;
}
