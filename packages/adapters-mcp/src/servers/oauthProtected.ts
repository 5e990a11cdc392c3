#!/usr/bin/env node
// An OAuth-protected MCP server of our own (A1–A4 tests): a resource server on one loopback
// port (streamable HTTP at /mcp, legacy SSE at /sse + /messages, RFC 9728 metadata) and a
// strict authorization server on another. Tools: `list_notes` needs `notes:read`,
// `add_note` needs `notes:write` too (403 insufficient_scope: step-up).
// Flags: --port, --as-port, --token-ttl <s>, --rotate, --client-id/--client-secret (a
// pre-registered client), --no-dcr, --deny. Prints `listening <mcp url> <sse url> <issuer>`.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { NodeStreamableHTTPServerTransport } from "@modelcontextprotocol/node";
import { SSEServerTransport } from "@modelcontextprotocol/server-legacy/sse";
import { AuthorizationServer } from "./internal/authorizationServer.js";
import { flag, objectSchema, text, toolServer, unknownTool } from "./internal/serve.js";

const READ = "notes:read";
const WRITE = "notes:write";
const argv = process.argv.slice(2);
const has = (name: string) => argv.includes(`--${name}`);

const rs = createServer();
await new Promise<void>((resolve) => rs.listen(Number(flag("port", "0")), "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(rs.address() as AddressInfo).port}`;
const as = new AuthorizationServer({
  // One resource for both endpoints (/mcp and /sse are paths under it).
  resource: origin,
  scopesSupported: [READ, WRITE],
  tokenTtlSeconds: Number(flag("token-ttl", "3600")),
  rotate: has("rotate"),
  ...(flag("client-id", "")
    ? { client: { id: flag("client-id", ""), secret: flag("client-secret", "") } }
    : {}),
  dynamicRegistration: !has("no-dcr"),
  deny: has("deny"),
});
const issuer = await as.listen(Number(flag("as-port", "0")));
const notes: string[] = [];

function mcpServer() {
  return toolServer({
    name: "oauth-notes",
    list: () => ({
      tools: [
        { name: "list_notes", description: "the notes", inputSchema: objectSchema({}) },
        {
          name: "add_note",
          description: "adds a note (needs notes:write)",
          inputSchema: objectSchema({ text: { type: "string" } }),
        },
      ],
    }),
    call: (name, args) => {
      if (name === "list_notes") return text(JSON.stringify(notes));
      if (name === "add_note") {
        notes.push(String(args.text ?? ""));
        return text(`added; ${notes.length} note(s)`);
      }
      return unknownTool(name);
    },
  });
}

const challenge = (scope: string, extra = "") =>
  `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="${scope}"${extra}`;

/** The bearer check of every MCP request; the scopes a request needs depend on what it calls. */
function authorized(req: IncomingMessage, res: ServerResponse, body: unknown): boolean {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
  const grant = token === undefined ? "invalid" : as.verify(token);
  if (typeof grant === "string") {
    res
      .writeHead(401, {
        "www-authenticate": challenge(
          READ,
          grant === "expired" ? ', error="invalid_token", error_description="expired"' : "",
        ),
        "content-type": "application/json",
      })
      .end(JSON.stringify({ error: "invalid_token" }));
    return false;
  }
  const call = body as { method?: string; params?: { name?: string } } | undefined;
  const needs =
    call?.method === "tools/call" && call.params?.name === "add_note" ? [READ, WRITE] : [READ];
  if (!needs.every((s) => grant.scopes.includes(s))) {
    res
      .writeHead(403, {
        "www-authenticate": challenge(needs.join(" "), ', error="insufficient_scope"'),
        "content-type": "application/json",
      })
      .end(JSON.stringify({ error: "insufficient_scope" }));
    return false;
  }
  return true;
}

const sse = new Map<string, SSEServerTransport>();

rs.on("request", (req, res) => {
  void handle(req, res).catch((error: unknown) => {
    process.stderr.write(`oauth-protected server: ${String(error)}\n`);
    if (!res.headersSent) res.writeHead(500).end();
  });
});

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", origin);
  if (req.method === "GET" && url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        resource: origin,
        authorization_servers: [issuer],
        scopes_supported: [READ, WRITE],
        bearer_methods_supported: ["header"],
      }),
    );
    return;
  }
  if (url.pathname === "/mcp") {
    const body = req.method === "POST" ? JSON.parse(await readBody(req)) : undefined;
    if (!authorized(req, res, body)) return;
    // Stateless: a fresh server and transport per request.
    const transport = new NodeStreamableHTTPServerTransport({});
    const server = mcpServer();
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    return;
  }
  if (req.method === "GET" && url.pathname === "/sse") {
    if (!authorized(req, res, undefined)) return;
    const transport = new SSEServerTransport("/messages", res);
    sse.set(transport.sessionId, transport);
    res.on("close", () => sse.delete(transport.sessionId));
    await mcpServer().connect(transport);
    return;
  }
  if (req.method === "POST" && url.pathname === "/messages") {
    const body = JSON.parse(await readBody(req));
    if (!authorized(req, res, body)) return;
    const transport = sse.get(url.searchParams.get("sessionId") ?? "");
    if (!transport) {
      res.writeHead(404).end("unknown session");
      return;
    }
    await transport.handlePostMessage(req, res, body);
    return;
  }
  res.writeHead(404).end();
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

process.stdout.write(`listening ${origin}/mcp ${origin}/sse ${issuer}\n`);
const stop = () => {
  rs.closeAllConnections();
  rs.close(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
