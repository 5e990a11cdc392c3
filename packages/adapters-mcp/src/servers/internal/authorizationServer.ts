// A strict OAuth 2.1 authorization server for the OAuth tests (RFC 8414 metadata, RFC 7591
// registration that must ask for refresh_token, PKCE S256 only, RFC 8707 `resource`, rotating
// refresh tokens whose reuse revokes the family, RFC 7009 revocation). Consent is automatic.
// It records every secret it issues or receives, so a test can scan for all of them.
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface AuthorizationServerOptions {
  /** The protected resource tokens are for (RFC 8707: requests must name it). */
  resource: string;
  scopesSupported: string[];
  tokenTtlSeconds: number;
  /** A refresh issues a new refresh token and retires the old one (reuse: invalid_grant, family revoked). */
  rotate: boolean;
  /** A pre-registered confidential client (client_secret_basic). */
  client?: { id: string; secret: string };
  dynamicRegistration: boolean;
  /** Answer every authorization with access_denied. */
  deny: boolean;
}

export interface IssuedToken {
  scopes: string[];
  expiresAt: number;
  clientId: string;
  family: string;
}

interface Client {
  id: string;
  secret: string | null;
  redirectUris: string[];
}

interface Code {
  clientId: string;
  redirectUri: string;
  challenge: string;
  scopes: string[];
}

export interface AuthorizationStats {
  registrations: number;
  authorizations: {
    scope: string | null;
    resource: string | null;
    challengeMethod: string | null;
  }[];
  codeExchanges: number;
  refreshes: number;
  reusedRefreshTokens: number;
  revocations: number;
  clientCredentials: number;
  /** Every token, code, verifier and client secret seen, for secret scans (a test server's privilege). */
  secrets: string[];
}

interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

const json = (status: number, body: unknown): Reply => ({
  status,
  headers: { "content-type": "application/json", "cache-control": "no-store" },
  body,
});
const error = (status: number, code: string, description: string): Reply =>
  json(status, { error: code, error_description: description });

export class AuthorizationServer {
  readonly stats: AuthorizationStats = {
    registrations: 0,
    authorizations: [],
    codeExchanges: 0,
    refreshes: 0,
    reusedRefreshTokens: 0,
    revocations: 0,
    clientCredentials: 0,
    secrets: [],
  };
  readonly #options: AuthorizationServerOptions;
  readonly #clients = new Map<string, Client>();
  readonly #codes = new Map<string, Code>();
  readonly #access = new Map<string, IssuedToken>();
  readonly #refresh = new Map<string, IssuedToken & { retired: boolean }>();
  readonly #revokedFamilies = new Set<string>();
  #issuer = "";

  constructor(options: AuthorizationServerOptions) {
    this.#options = options;
    if (options.client) {
      this.stats.secrets.push(options.client.secret);
      this.#clients.set(options.client.id, {
        id: options.client.id,
        secret: options.client.secret,
        redirectUris: [],
      });
    }
  }

  get issuer(): string {
    return this.#issuer;
  }

  /** The resource server's check of a bearer token: its grant, or why it is refused. */
  verify(token: string): IssuedToken | "invalid" | "expired" {
    const t = this.#access.get(token);
    if (!t || this.#revokedFamilies.has(t.family)) return "invalid";
    if (t.expiresAt <= Date.now()) return "expired";
    return t;
  }

  async listen(port: number): Promise<string> {
    const server = createServer((req, res) => {
      this.#handle(req).then(
        (reply) => {
          res.writeHead(reply.status, reply.headers ?? {});
          res.end(reply.body === undefined ? undefined : JSON.stringify(reply.body));
        },
        (e: unknown) => {
          process.stderr.write(`authorization server: ${String(e)}\n`);
          if (!res.headersSent) res.writeHead(500).end();
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    this.#issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.#issuer;
  }

  async #handle(req: IncomingMessage): Promise<Reply> {
    const url = new URL(req.url ?? "/", this.#issuer);
    const route = `${req.method} ${url.pathname}`;
    switch (route) {
      case "GET /.well-known/oauth-authorization-server":
        return json(200, this.#metadata());
      case "GET /_stats":
        return json(200, this.stats);
      case "POST /register":
        if (!this.#options.dynamicRegistration) break;
        return this.#register(JSON.parse(await readBody(req)) as Record<string, unknown>);
      case "GET /authorize":
        return this.#authorize(url.searchParams);
      case "POST /token":
        return this.#token(req, new URLSearchParams(await readBody(req)));
      case "POST /revoke":
        return this.#revoke(new URLSearchParams(await readBody(req)));
      // Test controls: the server loses its registrations, or every grant is revoked.
      case "POST /_forget-clients":
        for (const [id, c] of this.#clients)
          if (c.redirectUris.length > 0) this.#clients.delete(id);
        return { status: 204 };
      case "POST /_revoke-all":
        for (const t of [...this.#access.values(), ...this.#refresh.values()])
          this.#revokedFamilies.add(t.family);
        return { status: 204 };
    }
    return { status: 404 };
  }

  #metadata(): Record<string, unknown> {
    return {
      issuer: this.#issuer,
      authorization_endpoint: `${this.#issuer}/authorize`,
      token_endpoint: `${this.#issuer}/token`,
      revocation_endpoint: `${this.#issuer}/revoke`,
      ...(this.#options.dynamicRegistration
        ? { registration_endpoint: `${this.#issuer}/register` }
        : {}),
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none", "client_secret_basic"],
      scopes_supported: this.#options.scopesSupported,
    };
  }

  #register(body: Record<string, unknown>): Reply {
    const grants = (body.grant_types as string[] | undefined) ?? ["authorization_code"];
    // Strict, as some servers are: a client that cannot refresh is refused.
    if (!grants.includes("refresh_token") || !grants.includes("authorization_code"))
      return error(
        400,
        "invalid_client_metadata",
        "grant_types must include authorization_code and refresh_token",
      );
    const redirectUris = (body.redirect_uris as string[] | undefined) ?? [];
    if (redirectUris.length === 0)
      return error(400, "invalid_redirect_uri", "redirect_uris is required");
    const confidential = body.token_endpoint_auth_method === "client_secret_basic";
    const client: Client = {
      id: `tlcid_${random(12)}`,
      secret: confidential ? this.#secret("tlcs_") : null,
      redirectUris,
    };
    this.#clients.set(client.id, client);
    this.stats.registrations++;
    return json(201, {
      client_id: client.id,
      ...(client.secret ? { client_secret: client.secret } : {}),
      redirect_uris: redirectUris,
      grant_types: grants,
      token_endpoint_auth_method: confidential ? "client_secret_basic" : "none",
    });
  }

  #authorize(p: URLSearchParams): Reply {
    const client = this.#clients.get(p.get("client_id") ?? "");
    const redirect = p.get("redirect_uri") ?? "";
    if (!client) return error(400, "invalid_client", "unknown client_id");
    // A pre-registered client here allows any loopback redirect (RFC 8252 §7.3).
    const allowed =
      client.redirectUris.length === 0
        ? /^http:\/\/127\.0\.0\.1:\d+\/callback$/.test(redirect)
        : client.redirectUris.includes(redirect);
    if (!allowed) return error(400, "invalid_request", "redirect_uri is not registered");
    this.stats.authorizations.push({
      scope: p.get("scope"),
      resource: p.get("resource"),
      challengeMethod: p.get("code_challenge_method"),
    });
    const back = new URL(redirect);
    const state = p.get("state");
    if (state) back.searchParams.set("state", state);
    const problem = this.#options.deny
      ? ["access_denied", "the user said no"]
      : p.get("response_type") !== "code"
        ? ["unsupported_response_type", "code only"]
        : p.get("code_challenge_method") !== "S256" || !p.get("code_challenge")
          ? ["invalid_request", "PKCE with S256 is required"]
          : p.get("resource") !== this.#options.resource
            ? ["invalid_target", `resource must be ${this.#options.resource}`]
            : null;
    if (problem) {
      back.searchParams.set("error", problem[0]!);
      back.searchParams.set("error_description", problem[1]!);
    } else {
      const code = this.#secret("tlac_");
      this.#codes.set(code, {
        clientId: client.id,
        redirectUri: redirect,
        challenge: p.get("code_challenge")!,
        scopes: (p.get("scope") ?? "").split(" ").filter(Boolean),
      });
      back.searchParams.set("code", code);
    }
    return { status: 302, headers: { location: back.href } };
  }

  #token(req: IncomingMessage, p: URLSearchParams): Reply {
    const client = this.#authenticate(req, p);
    if (!client) return error(401, "invalid_client", "client authentication failed");
    if (p.get("resource") !== null && p.get("resource") !== this.#options.resource)
      return error(400, "invalid_target", "wrong resource");
    const grant = p.get("grant_type");
    if (grant === "authorization_code") {
      const code = this.#codes.get(p.get("code") ?? "");
      this.#codes.delete(p.get("code") ?? "");
      const verifier = p.get("code_verifier") ?? "";
      this.stats.secrets.push(verifier);
      if (!code || code.clientId !== client.id) return error(400, "invalid_grant", "unknown code");
      if (code.redirectUri !== p.get("redirect_uri"))
        return error(400, "invalid_grant", "redirect_uri differs");
      if (createHash("sha256").update(verifier).digest("base64url") !== code.challenge)
        return error(400, "invalid_grant", "PKCE verification failed");
      this.stats.codeExchanges++;
      return json(200, this.#issue(client.id, code.scopes, random(8)));
    }
    if (grant === "refresh_token") {
      const rt = p.get("refresh_token") ?? "";
      const old = this.#refresh.get(rt);
      if (!old || old.clientId !== client.id || this.#revokedFamilies.has(old.family))
        return error(400, "invalid_grant", "unknown or revoked refresh token");
      if (old.retired) {
        // Reuse of a rotated token: the family is compromised (OAuth 2.1 §4.3.1).
        this.stats.reusedRefreshTokens++;
        this.#revokedFamilies.add(old.family);
        return error(400, "invalid_grant", "refresh token already used");
      }
      if (this.#options.rotate) old.retired = true;
      this.stats.refreshes++;
      const keep = this.#options.rotate ? undefined : rt;
      return json(200, this.#issue(client.id, old.scopes, old.family, keep));
    }
    if (grant === "client_credentials") {
      this.stats.clientCredentials++;
      const scopes = (p.get("scope") ?? "").split(" ").filter(Boolean);
      const { refresh_token: _none, ...issued } = this.#issue(client.id, scopes, random(8));
      return json(200, issued);
    }
    return error(400, "unsupported_grant_type", String(grant));
  }

  #revoke(p: URLSearchParams): Reply {
    const t = p.get("token") ?? "";
    const grant = this.#access.get(t) ?? this.#refresh.get(t);
    if (grant) {
      this.#revokedFamilies.add(grant.family);
      this.stats.revocations++;
    }
    return { status: 200 };
  }

  #authenticate(req: IncomingMessage, p: URLSearchParams): Client | null {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (basic) {
      const [id, secret] = Buffer.from(basic, "base64").toString("utf8").split(":");
      const client = this.#clients.get(id ?? "");
      return client && client.secret !== null && client.secret === secret ? client : null;
    }
    const client = this.#clients.get(p.get("client_id") ?? "");
    return client && client.secret === null ? client : null;
  }

  #issue(
    clientId: string,
    scopes: string[],
    family: string,
    keepRefresh?: string,
  ): Record<string, unknown> {
    const expiresAt = Date.now() + this.#options.tokenTtlSeconds * 1000;
    const access = this.#secret("tlat_");
    this.#access.set(access, { scopes, expiresAt, clientId, family });
    const refresh = keepRefresh ?? this.#secret("tlrt_");
    if (!keepRefresh)
      this.#refresh.set(refresh, { scopes, expiresAt: Infinity, clientId, family, retired: false });
    return {
      access_token: access,
      token_type: "Bearer",
      expires_in: this.#options.tokenTtlSeconds,
      refresh_token: refresh,
      scope: scopes.join(" "),
    };
  }

  #secret(prefix: string): string {
    const value = `${prefix}${random(24)}`;
    this.stats.secrets.push(value);
    return value;
  }
}

function random(bytes: number): string {
  return randomBytes(bytes).toString("base64url");
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8");
    });
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}
