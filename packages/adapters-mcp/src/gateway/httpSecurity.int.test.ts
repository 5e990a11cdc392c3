import { request } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { initializeBody, postInitialize } from "@toolledger/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  openStandaloneConversation,
  type StandaloneConversation,
} from "../conversation/standaloneConversation.js";
import { shipped } from "../testing/fixtures.js";
import type { HttpGateway } from "./gatewayOptions.js";
import { serveGatewayHttp } from "./serveGatewayHttp.js";

// Real HTTP requests against the gateway's endpoint (MCP transport security: Origin, auth).
const TOKEN = "a-bearer-token-of-32-characters!";
const initialize = initializeBody("raw");

function post(url: URL, headers: Record<string, string>): Promise<Response> {
  return postInitialize(url, headers, "raw");
}

describe("bearer token and Origin checks", () => {
  let session: StandaloneConversation;
  let gateway: HttpGateway;
  let errors: string[];

  beforeAll(async () => {
    errors = [];
    session = await openStandaloneConversation();
    await session.addExtensions([shipped("notes", "notes")]);
    gateway = await serveGatewayHttp(session, {
      host: "0.0.0.0",
      token: TOKEN,
      allowedOrigins: ["https://app.example.com"],
      onError: (e) => errors.push(e.message),
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await session?.close();
  });

  const url = () => new URL(`http://127.0.0.1:${gateway.url.port}/mcp`);

  it("the right token is served", async () => {
    const res = await post(url(), { authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toMatch(/.+/);
    await res.body?.cancel();
  });

  it("a wrong token and no token get the same 401 that reveals nothing", async () => {
    const wrong = await post(url(), { authorization: "Bearer a-wrong-token-of-32-characters!!" });
    const prefix = await post(url(), { authorization: `Bearer ${TOKEN.slice(0, -1)}` });
    const none = await post(url(), {});
    const basic = await post(url(), { authorization: `Basic ${TOKEN}` });
    const bodies = await Promise.all([wrong, prefix, none, basic].map((r) => r.text()));
    for (const [i, res] of [wrong, prefix, none, basic].entries()) {
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe("Bearer");
      expect(res.headers.get("mcp-session-id")).toBeNull();
      expect(bodies[i]).toBe(bodies[0]);
    }
    expect(JSON.parse(bodies[0] ?? "")).toEqual({
      jsonrpc: "2.0",
      error: { code: -32001, message: "Unauthorized" },
      id: null,
    });
    expect(errors.join("\n")).not.toContain(TOKEN.slice(0, 8));
  });

  it("a browser Origin that is neither loopback nor allowed is refused, even with the token", async () => {
    const res = await post(url(), {
      authorization: `Bearer ${TOKEN}`,
      origin: "http://evil.example",
    });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("origin");
    const nullOrigin = await post(url(), { authorization: `Bearer ${TOKEN}`, origin: "null" });
    expect(nullOrigin.status).toBe(403);
    await nullOrigin.body?.cancel();
  });

  it("loopback and configured origins are served, with CORS for the browser", async () => {
    for (const origin of ["http://localhost:6274", "https://app.example.com"]) {
      const preflight = await fetch(url(), {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe(origin);
      expect(preflight.headers.get("access-control-allow-headers")).toContain("authorization");
      const res = await post(url(), { authorization: `Bearer ${TOKEN}`, origin });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
      expect(res.headers.get("access-control-expose-headers")).toBe("mcp-session-id");
      await res.body?.cancel();
    }
  });

  it("an MCP SDK client with the token works end to end", async () => {
    const client = new Client({ name: "sdk", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(url(), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("notes__add_note");
    } finally {
      await client.close();
    }
  });
});

describe("binding", () => {
  it("beyond loopback without a token is refused; a short token is refused", async () => {
    const session = await openStandaloneConversation();
    try {
      await expect(serveGatewayHttp(session, { host: "0.0.0.0" })).rejects.toThrow(
        /needs a bearer token/,
      );
      await expect(serveGatewayHttp(session, { token: "short" })).rejects.toThrow(
        /at least 16 characters/,
      );
    } finally {
      await session.close();
    }
  });

  it("on loopback without a token, a bad Origin is still refused and a rebinding Host too", async () => {
    const session = await openStandaloneConversation();
    const gateway = await serveGatewayHttp(session);
    try {
      const bad = await post(gateway.url, { origin: "http://attacker.example:8080" });
      expect(bad.status).toBe(403);
      await bad.body?.cancel();
      // fetch may not set Host; node:http sends exactly what a rebinding browser would.
      const rebound = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port: gateway.url.port,
            path: "/mcp",
            method: "POST",
            headers: {
              host: `attacker.example:${gateway.url.port}`,
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end(initialize);
      });
      expect(rebound).toBe(403);
      const good = await post(gateway.url, { origin: `http://127.0.0.1:${gateway.url.port}` });
      expect(good.status).toBe(200);
      await good.body?.cancel();
    } finally {
      await gateway.close();
      await session.close();
    }
  });
});
