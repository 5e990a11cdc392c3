import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { NodeStreamableHTTPServerTransport } from "@modelcontextprotocol/node";
import type { Server } from "@modelcontextprotocol/server";
import { classifyInboundRequest, isInitializeRequest } from "@modelcontextprotocol/server";
import { NodeHttpTransport } from "./nodeHttpTransport.js";

export interface HttpHostOptions {
  /** Loopback by default: the gateway is a local tool, not a public service. */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** The MCP endpoint path. Default `/mcp`. */
  path?: string;
  /** Called with every error the host cannot answer to a client (never swallowed). */
  onError?: (error: Error) => void;
  /**
   * A bearer token every request must carry (`Authorization: Bearer <token>`). Required to
   * bind beyond loopback. Compared in constant time; never logged or echoed.
   */
  token?: string;
  /**
   * Browser origins allowed besides loopback ones (`http://localhost:*`, `http://127.0.0.1:*`,
   * `http://[::1]:*`), e.g. `https://inspector.example.com`. A request with any other
   * `Origin` is refused (DNS rebinding, MCP transport security); requests without `Origin`
   * (non-browser clients) are not affected.
   */
  allowedOrigins?: readonly string[];
  /**
   * `node` (the gateway): NodeHttpTransport, on Node's own http objects; `sdk` (default, the
   * test servers): the SDK's StreamableHTTPServerTransport, so they stay an independent baseline.
   */
  transport?: "node" | "sdk";
  /**
   * Answers requests for other paths after the same access checks as the MCP endpoint
   * (e.g. `serve --view`'s pages); resolves false when it does not know the path.
   */
  routes?: (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>;
  /**
   * V1: serves what a 2026-07-28 client sends (every request the SDK's classification does not
   * call 2025-era traffic, a GET or DELETE without a session, and every request to
   * `<path>/c/<id>`, the conversation `id`; null: the bare path). Without it, the endpoint
   * serves 2025-era sessions only, as before.
   */
  modern?: (
    conversation: string | null,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ) => Promise<void>;
}

export const MIN_TOKEN_LENGTH = 16;

/** Whether `host` is a loopback address or name (binding there exposes nothing to the network). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

type SessionTransport = NodeStreamableHTTPServerTransport | NodeHttpTransport;

export interface HttpHost {
  /** The endpoint URL, e.g. `http://127.0.0.1:41234/mcp`. */
  url: URL;
  /** Open downstream MCP sessions. */
  readonly sessionCount: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Serves MCP over streamable HTTP, one SDK server per downstream session (stateful mode,
 * so server-initiated notifications such as list_changed reach the client over SSE).
 */
export async function hostMcpOverHttp(
  makeServer: () => Server,
  options: HttpHostOptions = {},
): Promise<HttpHost> {
  // Loaded only when asked for (test servers): serve's start does not pay for it (bench 11).
  const SdkTransport =
    options.transport === "node"
      ? null
      : (await import("@modelcontextprotocol/node")).NodeStreamableHTTPServerTransport;
  const host = options.host ?? "127.0.0.1";
  const path = options.path ?? "/mcp";
  const loopback = isLoopbackHost(host);
  const token = options.token === undefined ? undefined : digest(options.token);
  if (!loopback && token === undefined) {
    throw new Error(
      `binding to ${host} exposes the MCP endpoint beyond this machine; it needs a bearer token`,
    );
  }
  if (options.token !== undefined && options.token.length < MIN_TOKEN_LENGTH)
    throw new Error(`the bearer token must have at least ${MIN_TOKEN_LENGTH} characters`);
  const extraOrigins = new Set((options.allowedOrigins ?? []).map(normalizeOrigin));
  const allowedHosts = new Set<string>();
  const sessions = new Map<string, { transport: SessionTransport; server: Server }>();
  const report =
    options.onError ??
    ((error: Error) => process.stderr.write(`mcp http host: ${error.message}\n`));

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // DNS rebinding: a web page must not reach the gateway through a name it controls.
    const origin = req.headers.origin;
    if (origin !== undefined) {
      if (!originAllowed(origin, extraOrigins))
        return reply(res, 403, `origin ${JSON.stringify(origin)} is not allowed`);
      res.setHeader("access-control-allow-origin", origin);
      res.setHeader("vary", "Origin");
      res.setHeader("access-control-expose-headers", "mcp-session-id");
      if (req.method === "OPTIONS") {
        res
          .writeHead(204, {
            "access-control-allow-methods": "GET, POST, DELETE",
            "access-control-allow-headers":
              "authorization, content-type, mcp-session-id, mcp-protocol-version, last-event-id, mcp-method, mcp-name",
            "access-control-max-age": "600",
          })
          .end();
        return;
      }
    }
    // One answer for a missing and a wrong token, sent before anything else is looked at.
    if (token !== undefined && !bearerMatches(req.headers.authorization, token)) {
      res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" });
      res.end(
        JSON.stringify({
          jsonrpc: "2.0",
          error: { code: -32001, message: "Unauthorized" },
          id: null,
        }),
      );
      return;
    }
    if (loopback && !allowedHosts.has(req.headers.host ?? "")) {
      return reply(
        res,
        403,
        `host ${JSON.stringify(req.headers.host ?? "")} is not allowed; use ${[...allowedHosts][0]}`,
      );
    }
    // The MCP endpoint itself (every call) needs no URL object.
    const url = req.url === path ? null : new URL(req.url ?? "/", "http://localhost");
    /** V1: the conversation a 2026-07-28 client names in the path (`<path>/c/<id>`). */
    let named: string | null = null;
    if (url !== null && url.pathname !== path) {
      named = options.modern ? conversationIn(url.pathname, path) : null;
      if (named === null) {
        if (options.routes && (await options.routes(req, res, url))) return;
        return reply(res, 404, `no MCP endpoint at ${url.pathname}; use ${path}`);
      }
    }
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    const body = req.method === "POST" ? await readJson(req) : undefined;
    if (options.modern && (named !== null || (sessionId === undefined && isModern(req, body))))
      return options.modern(named, req, res, body);
    const existing = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (existing) return existing.transport.handleRequest(req, res, body);
    if (sessionId !== undefined)
      return replyRpc(res, 404, -32001, `MCP session ${sessionId} not found; start a new session`);
    if (req.method !== "POST" || !isInitializeRequest(body)) {
      return replyRpc(res, 400, -32000, "no mcp-session-id header and not an initialize request");
    }
    const server = makeServer();
    const sessionOptions = {
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id: string) => {
        sessions.set(id, { transport, server });
      },
    };
    const transport: SessionTransport =
      SdkTransport === null
        ? new NodeHttpTransport(sessionOptions)
        : new SdkTransport(sessionOptions);
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const err = error instanceof Error ? error : new Error(String(error));
      report(err);
      if (!res.headersSent)
        replyRpc(res, err instanceof BodyError ? 400 : 500, -32603, err.message);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const bound = host.includes(":") ? `[${host}]` : host;
  for (const name of ["127.0.0.1", "localhost", "[::1]", bound])
    allowedHosts.add(`${name}:${port}`);
  return {
    url: new URL(`http://${host.includes(":") ? `[${host}]` : host}:${port}${path}`),
    get sessionCount() {
      return sessions.size;
    },
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map(async (s) => s.server.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve, reject) => http.close((e) => (e ? reject(e) : resolve())));
    },
  };
}

class BodyError extends Error {}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * V1: whether a request without a session is a 2026-07-28 client's: the SDK's own
 * classification (`isLegacyRequest` on the body already read), and a GET or DELETE, which
 * only a 2025 session may send (the modern side answers 405).
 */
function isModern(req: IncomingMessage, body: unknown): boolean {
  if (req.method !== "POST") return req.method === "GET" || req.method === "DELETE";
  const version = header(req, "mcp-protocol-version");
  const method = header(req, "mcp-method");
  const name = header(req, "mcp-name");
  return (
    classifyInboundRequest({
      httpMethod: "POST",
      ...(version === undefined ? {} : { protocolVersionHeader: version }),
      ...(method === undefined ? {} : { mcpMethodHeader: method }),
      ...(name === undefined ? {} : { mcpNameHeader: name }),
      body,
    }).kind !== "legacy"
  );
}

/** The conversation id in `<path>/c/<id>`, or null when the path is not one. */
function conversationIn(pathname: string, path: string): string | null {
  const prefix = `${path}/c/`;
  if (!pathname.startsWith(prefix)) return null;
  const id = decodeURIComponent(pathname.slice(prefix.length));
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id) ? id : null;
}

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/** Constant time: both sides are hashed to one length before the comparison. */
function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer[ \t]+(.+)$/i.exec(header ?? "");
  const given = digest(match?.[1]?.trim() ?? "");
  return timingSafeEqual(given, expected) && match !== null;
}

function normalizeOrigin(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    return origin;
  }
}

/** Loopback origins (any port, http or https) and the ones configured; `null` and others are refused. */
function originAllowed(origin: string, extra: ReadonlySet<string>): boolean {
  if (extra.has("*") || extra.has(normalizeOrigin(origin))) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

/** Reads the body with listeners: an async iterator over `req` costs a promise per chunk on every call. */
function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        cleanup();
        req.resume();
        reject(new BodyError(`request body exceeds ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      const text =
        chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
      try {
        resolve(JSON.parse(text) as unknown);
      } catch (error) {
        reject(new BodyError(`request body is not JSON: ${(error as Error).message}`));
      }
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

function reply(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "text/plain" }).end(text);
}

function replyRpc(res: ServerResponse, status: number, code: number, message: string): void {
  res
    .writeHead(status, { "content-type": "application/json" })
    .end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
