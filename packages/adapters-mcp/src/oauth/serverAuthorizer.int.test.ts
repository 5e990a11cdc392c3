// A1–A4 at the library level: a host with an OAuth runtime against our OAuth-protected MCP
// server (servers/oauthProtected), the browser step followed in process as a browser would.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getExtension } from "@toolledger/core";
import { afterEach, describe, expect, it } from "vitest";
import type { AdapterError } from "../adapterError.js";
import { openHost, type ToolledgerHost } from "../host/toolledgerHost.js";
import { serverScriptPath } from "../serverScriptPath.js";
import { waitFor } from "../testing/fixtures.js";
import type { AuthorizationPrompt } from "./authorizationTypes.js";
import { ServerAuthorizer } from "./serverAuthorizer.js";
import { OAuthTokenStore } from "./tokenStore.js";

interface Running {
  mcp: string;
  sse: string;
  issuer: string;
  stats: () => Promise<Record<string, unknown> & { secrets: string[] }>;
  control: (path: string) => Promise<void>;
  stop: () => Promise<void>;
}

const running: Running[] = [];
const hosts: ToolledgerHost[] = [];

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

async function start(flags: string[] = []): Promise<Running> {
  const child = spawn(process.execPath, [serverScriptPath("oauthProtected"), ...flags], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [mcp, sse, issuer] = await new Promise<string[]>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /listening (\S+) (\S+) (\S+)/.exec(out);
      if (m) resolve([m[1]!, m[2]!, m[3]!]);
    });
    child.once("exit", (code) => reject(new Error(`oauthProtected exited with ${code}`)));
  });
  const r: Running = {
    mcp: mcp!,
    sse: sse!,
    issuer: issuer!,
    stats: async () => (await (await fetch(`${issuer}/_stats`)).json()) as never,
    control: async (path) => {
      await fetch(`${issuer}${path}`, { method: "POST" });
    },
    stop: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    },
  };
  running.push(r);
  return r;
}

/** A browser that follows the authorization server's redirect to the loopback callback. */
const followingBrowser: AuthorizationPrompt = {
  async present(url) {
    let at = url.href;
    for (let hop = 0; hop < 5; hop++) {
      const res = await fetch(at, { redirect: "manual" });
      const location = res.headers.get("location");
      await res.body?.cancel();
      if (!location) break;
      at = new URL(location, at).href;
    }
    return "browser";
  },
};

function storeDir(): string {
  return mkdtempSync(join(tmpdir(), "toolledger-oauth-"));
}

async function hostWith(prompt: AuthorizationPrompt | null, dir = storeDir()) {
  const host = await openHost({
    oauth: { store: new OAuthTokenStore(dir), prompt, watchIntervalMs: 50 },
    retry: { attempts: 2, initialDelayMs: 50, maxDelayMs: 50 },
  });
  hosts.push(host);
  const types: string[] = [];
  host.events$.subscribe((e) => types.push(e.event.type));
  return { host, types, dir };
}

const ready = (host: ToolledgerHost, key: string) =>
  waitFor(host.status$, (s) => s.key === key && s.phase === "ready", `${key} ready`, 30_000);

describe("A1–A4 ServerAuthorizer in a host", () => {
  it("A4 the first start asks once and joins; A2 refreshes before expiry; invalid_grant asks for a new authorization", async () => {
    const server = await start(["--token-ttl", "2", "--rotate"]);
    const { host, types } = await hostWith(followingBrowser);
    const joined = ready(host, "notes");
    await host.startExtensions([{ type: "streamable_http", name: "notes", url: server.mcp }]);
    await joined;
    expect(types).toEqual(
      expect.arrayContaining(["OAuthAuthorizationRequired", "OAuthAuthorized", "ToolsFetched"]),
    );
    expect(host.listTools().map((t) => t.publicName)).toEqual([
      "notes__add_note",
      "notes__list_notes",
    ]);
    // Past half its life, a token is refreshed before it is used.
    await new Promise((r) => setTimeout(r, 1200));
    await host.callUpstream("notes", "list_notes", {});
    await host.settled();
    expect(types).toContain("OAuthTokenRefreshed");
    expect((await server.stats()).refreshes).toBe(1);

    // The authorization server revokes everything: the refresh fails with invalid_grant, and
    // the next request asks the user again (a second browser step), then goes through.
    await server.control("/_revoke-all");
    await new Promise((r) => setTimeout(r, 2100));
    const first = await host.callUpstream("notes", "list_notes", {}).catch((e: AdapterError) => e);
    if (first instanceof Error) {
      expect((first as AdapterError).code).toBe("AUTHORIZATION_REQUIRED");
      await (first as AdapterError).authorized;
      await host.callUpstream("notes", "list_notes", {});
    }
    await host.settled();
    expect(types).toContain("OAuthAuthorizationFailed");
    const stats = await server.stats();
    expect((stats.authorizations as unknown[]).length).toBe(2);
    expect(getExtension(host.state, "notes")?.authorization).toMatchObject({
      status: "authorized",
      refreshes: 1,
    });
  }, 60_000);

  it("A1 invalid_client on a dynamically registered client: registered again once", async () => {
    const server = await start(["--token-ttl", "2"]);
    const { host, types } = await hostWith(followingBrowser);
    const joined = ready(host, "notes");
    await host.startExtensions([{ type: "streamable_http", name: "notes", url: server.mcp }]);
    await joined;
    await server.control("/_forget-clients");
    await new Promise((r) => setTimeout(r, 2100));
    const first = await host.callUpstream("notes", "list_notes", {}).catch((e: AdapterError) => e);
    if (first instanceof Error) await (first as AdapterError).authorized;
    await host.callUpstream("notes", "list_notes", {});
    await host.settled();
    const stats = await server.stats();
    expect(stats.registrations).toBe(2);
    expect((stats.authorizations as unknown[]).length).toBe(2);
    expect(types.filter((t) => t === "OAuthAuthorizationFailed").length).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it("A1 client credentials for a machine-to-machine client (client_secret_basic), no user involved", async () => {
    const server = await start(["--client-id", "m2m", "--client-secret", "m2m-secret-0123456789"]);
    const { host, types } = await hostWith(null);
    const joined = ready(host, "machine");
    await host.startExtensions([
      {
        type: "streamable_http",
        name: "machine",
        url: server.mcp,
        oauth: {
          clientId: "m2m",
          clientSecret: "m2m-secret-0123456789",
          grant: "client_credentials",
          scopes: ["notes:read", "notes:write"],
        },
      },
    ]);
    await joined;
    const added = await host.callUpstream("machine", "add_note", { text: "hi" });
    expect(added.content).toEqual([{ type: "text", text: "added; 1 note(s)" }]);
    expect((await server.stats()).clientCredentials).toBe(1);
    await host.settled();
    expect(types).toContain("OAuthAuthorized");
    expect(types).not.toContain("OAuthAuthorizationRequired");
  }, 60_000);

  it("A4 without a prompt (every command but serve): the error says to run `toolledger auth login`", async () => {
    const server = await start();
    const { host } = await hostWith(null);
    const [result] = await host.addExtensions([{ type: "sse", name: "notes", url: server.sse }]);
    expect(result?.error?.code).toBe("AUTHORIZATION_REQUIRED");
    expect(result?.error?.message).toContain("run `toolledger auth login notes`");
    expect(host.extensions()[0]?.phase).toBe("authorizing");
  }, 60_000);
});

describe("A2 where a token goes", () => {
  const grant = (serverUrl: string, issuer: string, token: string) => ({
    serverUrl,
    issuer,
    client: null,
    tokens: { access_token: token, token_type: "Bearer", issuer },
    expiresAt: Date.now() + 3_600_000,
    obtainedAt: Date.now(),
    scopes: [],
    grant: "authorization_code" as const,
    clientKind: "dynamic" as const,
    authorizedAt: null,
    lastRefreshAt: null,
    refreshes: 0,
    generation: 1,
  });

  function recordingFetch() {
    const seen: { url: string; authorization: string | null }[] = [];
    const fetchFn = async (url: string | URL, init?: RequestInit) => {
      seen.push({
        url: String(url),
        authorization: new Headers(init?.headers).get("authorization"),
      });
      return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
    };
    return { seen, fetchFn };
  }

  it("only to the server's own origin, and only its current issuer's token", async () => {
    const dir = storeDir();
    const store = new OAuthTokenStore(dir);
    const serverUrl = "https://mcp.example.com/mcp";
    store.writeServer({
      serverUrl,
      issuer: "https://as-a.example.com/",
      discovery: null,
      updatedAt: "",
    });
    store.write(grant(serverUrl, "https://as-a.example.com/", "token-of-issuer-a-0123456789"));
    store.write(grant(serverUrl, "https://as-b.example.com/", "token-of-issuer-b-0123456789"));
    const { seen, fetchFn } = recordingFetch();
    const authorizer = new ServerAuthorizer({
      name: "x",
      serverUrl,
      store,
      prompt: null,
      fetch: fetchFn,
    });
    await authorizer.fetch(serverUrl, { method: "POST" });
    await authorizer.fetch("https://elsewhere.example.net/collect", { method: "POST" });
    // The server now names issuer B: A's token is not sent to it, B's grant is used.
    store.writeServer({
      serverUrl,
      issuer: "https://as-b.example.com/",
      discovery: null,
      updatedAt: "",
    });
    const fresh = new ServerAuthorizer({
      name: "x",
      serverUrl,
      store,
      prompt: null,
      fetch: fetchFn,
    });
    await fresh.fetch(serverUrl, { method: "POST" });
    // A static Authorization header of the config is the user's scheme, untouched.
    await fresh.fetch(serverUrl, {
      method: "POST",
      headers: { authorization: "Bearer static-header-value" },
    });
    expect(seen).toEqual([
      { url: serverUrl, authorization: "Bearer token-of-issuer-a-0123456789" },
      { url: "https://elsewhere.example.net/collect", authorization: null },
      { url: serverUrl, authorization: "Bearer token-of-issuer-b-0123456789" },
      { url: serverUrl, authorization: "Bearer static-header-value" },
    ]);
    // Two grants of one server, one file each.
    expect(readFileSync(store.grantFile(serverUrl, "https://as-a.example.com/"), "utf8")).toContain(
      "token-of-issuer-a",
    );
  });
});
