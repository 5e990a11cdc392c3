import { mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readOAuthStatus } from "./oauthStatus.js";
import { emptyGrant, OAuthStoreError, OAuthTokenStore } from "./tokenStore.js";

const dir = () => join(mkdtempSync(join(tmpdir(), "toolledger-store-")), "oauth");

describe("A2 the token store", () => {
  it("lives under the XDG config directory (else ~/.config), or TOOLLEDGER_OAUTH_DIR", () => {
    if (process.platform === "win32") return;
    expect(OAuthTokenStore.defaultDir({ XDG_CONFIG_HOME: "/x" }, "/home/u")).toBe(
      "/x/toolledger/oauth",
    );
    expect(OAuthTokenStore.defaultDir({}, "/home/u")).toBe("/home/u/.config/toolledger/oauth");
    expect(OAuthTokenStore.defaultDir({ TOOLLEDGER_OAUTH_DIR: "/t" }, "/home/u")).toBe("/t");
  });

  it("writes 0600 files in a 0700 directory, atomically (no temporary file left), keyed by server and issuer", () => {
    const store = new OAuthTokenStore(dir());
    const a = { ...emptyGrant("https://s.example/mcp", "https://as-a.example/"), scopes: ["a"] };
    const b = { ...emptyGrant("https://s.example/mcp", "https://as-b.example/"), scopes: ["b"] };
    store.write(a);
    store.write(b);
    store.writeServer({
      serverUrl: "https://s.example/mcp",
      issuer: "https://as-a.example/",
      discovery: null,
      updatedAt: "",
    });
    expect(statSync(store.dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(store.dir);
    expect(files.filter((f) => f.endsWith(".tmp"))).toEqual([]);
    expect(files).toHaveLength(3);
    for (const f of files) expect(statSync(join(store.dir, f)).mode & 0o777).toBe(0o600);
    expect(store.read("https://s.example/mcp", "https://as-a.example/")?.scopes).toEqual(["a"]);
    expect(store.read("https://s.example/mcp", "https://as-b.example/")?.scopes).toEqual(["b"]);
    expect(store.read("https://other.example/mcp", "https://as-a.example/")).toBeNull();
    expect(readOAuthStatus(store)).toEqual([
      expect.objectContaining({
        serverUrl: "https://s.example/mcp",
        issuer: "https://as-a.example/",
        grants: expect.arrayContaining([
          expect.objectContaining({ issuer: "https://as-a.example/", state: "no_token" }),
          expect.objectContaining({ issuer: "https://as-b.example/", state: "no_token" }),
        ]),
      }),
    ]);
    store.remove("https://s.example/mcp");
    expect(readdirSync(store.dir)).toEqual([]);
  });

  it("a damaged file is an error naming it and what to do, never overwritten silently", () => {
    const store = new OAuthTokenStore(dir());
    store.write(emptyGrant("https://s.example/mcp", "https://as.example/"));
    const file = store.grantFile("https://s.example/mcp", "https://as.example/");
    writeFileSync(file, "{ not json");
    expect(() => store.read("https://s.example/mcp", "https://as.example/")).toThrow(
      OAuthStoreError,
    );
    expect(() => store.read("https://s.example/mcp", "https://as.example/")).toThrow(
      /is damaged .*remove it .*toolledger auth login/,
    );
  });

  it("status shows expiry, refreshability and the client kind, never a token", () => {
    const store = new OAuthTokenStore(dir());
    store.writeServer({
      serverUrl: "https://s.example/mcp",
      issuer: "https://as.example/",
      discovery: null,
      updatedAt: "",
    });
    store.write({
      ...emptyGrant("https://s.example/mcp", "https://as.example/"),
      tokens: {
        access_token: "at-secret-123456",
        token_type: "Bearer",
        refresh_token: "rt-secret-123456",
      },
      expiresAt: 1000,
      scopes: ["read"],
      clientKind: "dynamic",
      grant: "authorization_code",
    });
    const status = readOAuthStatus(store, { now: 2000 });
    expect(status[0]?.grants[0]).toMatchObject({
      state: "expired",
      refreshable: true,
      client: "dynamic",
    });
    expect(JSON.stringify(status)).not.toContain("secret");
  });
});
