import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { OAuthSettings } from "@toolledger/adapters-mcp";
import { isClientMetadataUrl, OAUTH_OPTION_NAMES } from "./configSchemas.js";
import type { RawServer, ReadContext } from "./readContext.js";

/**
 * A1: a server's `oauth` object (any format; Cursor's `auth` object read as the same), with
 * `${…}` expanded and `privateKeyFile` read. Problems go to the context like any option's;
 * `oauth` on a stdio server has no effect and is said so.
 */
export function readOAuth(
  server: RawServer,
  context: ReadContext,
  kind: string,
  expand: (value: string, field: readonly PropertyKey[]) => string,
  issue: (field: readonly PropertyKey[], message: string) => void,
): OAuthSettings | undefined {
  const own = server.entry.oauth;
  const cursor = server.format === "goose" ? undefined : server.entry.auth;
  if (own === undefined && cursor === undefined) return undefined;
  const field = own !== undefined ? "oauth" : "auth";
  const warn = (path: readonly PropertyKey[], message: string) =>
    context.warnings.push({
      ...context.at.key([...server.path, ...path]),
      field: [...server.path, ...path].map(String).join("."),
      message,
    });
  if (kind !== "streamable_http" && kind !== "sse") {
    warn(
      [field],
      `${field} applies to HTTP and SSE servers only; it has no effect on a ${kind} server`,
    );
    return undefined;
  }
  const out: OAuthSettings = {};
  if (cursor && own === undefined) {
    if (cursor.CLIENT_ID) out.clientId = expand(cursor.CLIENT_ID, ["auth", "CLIENT_ID"]);
    if (cursor.CLIENT_SECRET)
      out.clientSecret = expand(cursor.CLIENT_SECRET, ["auth", "CLIENT_SECRET"]);
    if (cursor.scopes) out.scopes = cursor.scopes;
    return out;
  }
  if (!own) return undefined;
  for (const key of Object.keys(own)) {
    if (!OAUTH_OPTION_NAMES.includes(key))
      warn(
        ["oauth", key],
        `unknown oauth option ${key}; it has no effect (known: ${OAUTH_OPTION_NAMES.join(", ")})`,
      );
  }
  if (own.clientId !== undefined) out.clientId = expand(own.clientId, ["oauth", "clientId"]);
  if (own.clientSecret !== undefined)
    out.clientSecret = expand(own.clientSecret, ["oauth", "clientSecret"]);
  if (own.clientMetadataUrl !== undefined) {
    const url = expand(own.clientMetadataUrl, ["oauth", "clientMetadataUrl"]);
    if (!context.structureOnly && !isClientMetadataUrl(url))
      issue(
        ["oauth", "clientMetadataUrl"],
        "must be an https:// URL with a path (a client ID metadata document)",
      );
    out.clientMetadataUrl = url;
  }
  if (own.scopes !== undefined) out.scopes = own.scopes;
  if (own.callbackPort !== undefined) out.callbackPort = own.callbackPort;
  if (own.grant !== undefined) out.grant = own.grant;
  if (own.signingAlgorithm !== undefined) out.signingAlgorithm = own.signingAlgorithm;
  if (own.privateKeyFile !== undefined && !context.structureOnly) {
    // Relative to the workspace folder, as envFile.
    const path = resolve(
      context.scope.workspaceFolder,
      expand(own.privateKeyFile, ["oauth", "privateKeyFile"]),
    );
    try {
      out.privateKey = readFileSync(path, "utf8");
    } catch (error) {
      issue(
        ["oauth", "privateKeyFile"],
        `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? "error"}`,
      );
    }
  }
  if (out.grant === "client_credentials" && !out.clientId)
    issue(
      ["oauth", "grant"],
      "the client_credentials grant needs oauth.clientId (and clientSecret or privateKeyFile)",
    );
  if (
    out.grant === "client_credentials" &&
    out.clientId &&
    !out.clientSecret &&
    own.privateKeyFile === undefined
  )
    issue(
      ["oauth", "grant"],
      "the client_credentials grant needs oauth.clientSecret or oauth.privateKeyFile",
    );
  if (own.privateKeyFile !== undefined && !out.clientId)
    issue(["oauth", "privateKeyFile"], "a private key signs for a client: set oauth.clientId too");
  return out;
}
