#!/usr/bin/env node
// A dual-era upstream on SDK v2 (the conformance fixture of issue 36, V1): one streamable
// HTTP endpoint serving both protocol eras with what the server scenarios of
// @modelcontextprotocol/conformance 0.2.0-alpha.12 call (internal/scenarioServer.ts).
// 2026-07-28 requests (a per-request `_meta` envelope) go to `createMcpHandler` (a fresh
// server per request, `server/discover`, `subscriptions/listen`); 2025-11-25 traffic gets a
// session per `initialize` (NodeStreamableHTTPServerTransport), so the server can ask the
// client for sampling and elicitation and reach it with list changes.
// `--port N` (0: a free one); `--modern-only` refuses 2025-11-25 as a modern-only server does.
// Prints `listening <url>` once it listens on 127.0.0.1.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  localhostHostValidation,
  type NodeIncomingMessageLike,
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
} from "@modelcontextprotocol/node";
import type { EventStore, JSONRPCMessage, McpServer } from "@modelcontextprotocol/server";
import {
  classifyInboundRequest,
  createMcpHandler,
  isInitializeRequest,
} from "@modelcontextprotocol/server";
import { scenarioServer } from "./internal/scenarioServer.js";
import type { ListChanges } from "./internal/scenarioTools.js";
import { flag, hasFlag } from "./internal/serve.js";

const modernOnly = hasFlag("modern-only");
const report = (error: Error) => process.stderr.write(`dual-era server: ${error.stack ?? error}\n`);

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  server: McpServer;
}
const sessions = new Map<string, Session>();

/** SEP-1699: a session's SSE events, kept so a client that reconnects gets what it missed. */
function memoryEventStore(): EventStore {
  const events: { id: string; stream: string; message: JSONRPCMessage }[] = [];
  return {
    async storeEvent(stream, message) {
      const id = `${stream}:${events.length}`;
      events.push({ id, stream, message });
      return id;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const at = events.findIndex((e) => e.id === lastEventId);
      const stream = events[at]?.stream ?? lastEventId.split(":")[0]!;
      for (const e of events.slice(at + 1))
        if (e.stream === stream && Object.keys(e.message).length > 0) await send(e.id, e.message);
      return stream;
    },
  };
}

// A change reaches 2026-07-28 clients on their subscriptions/listen streams (the handler's
// bus) and 2025-11-25 clients on their sessions.
const changes: ListChanges = {
  toolsChanged() {
    modern.notify.toolsChanged();
    for (const { server } of sessions.values()) server.sendToolListChanged();
  },
  promptsChanged() {
    modern.notify.promptsChanged();
    for (const { server } of sessions.values()) server.sendPromptListChanged();
  },
};

const modern = createMcpHandler(() => scenarioServer(changes), {
  legacy: "reject",
  onerror: report,
});
const serveModern = toNodeHandler(modern, { onerror: report });
const hostIsLocal = localhostHostValidation();

const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The request's protocol headers, as the SDK's classification reads them. */
function protocolHeaders(req: IncomingMessage) {
  const out: { protocolVersionHeader?: string; mcpMethodHeader?: string; mcpNameHeader?: string } =
    {};
  const version = header(req, "mcp-protocol-version");
  const method = header(req, "mcp-method");
  const name = header(req, "mcp-name");
  if (version !== undefined) out.protocolVersionHeader = version;
  if (method !== undefined) out.mcpMethodHeader = method;
  if (name !== undefined) out.mcpNameHeader = name;
  return out;
}

function answer(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));
}

async function readJson(req: IncomingMessage): Promise<{ body?: unknown; error?: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString("utf8");
  try {
    return { body: JSON.parse(raw) as unknown };
  } catch (error) {
    return { error: String(error) };
  }
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  // DNS rebinding: a local server answers only requests addressed to a local name.
  if (!hostIsLocal(req, res)) return;
  if (new URL(req.url ?? "/", "http://localhost").pathname !== "/mcp") {
    res.writeHead(404).end();
    return;
  }
  let body: unknown;
  if (req.method === "POST") {
    const read = await readJson(req);
    if (read.error !== undefined) return answer(res, 400, -32700, `Parse error: ${read.error}`);
    body = read.body;
  }
  const route = classifyInboundRequest({
    httpMethod: req.method ?? "GET",
    ...protocolHeaders(req),
    body,
  });
  // The modern handler also answers what the classification refuses, with the spec's codes.
  if (modernOnly || route.kind !== "legacy")
    return serveModern(req as NodeIncomingMessageLike, res, body);

  const id = header(req, "mcp-session-id");
  const session = id === undefined ? undefined : sessions.get(id);
  if (session) return session.transport.handleRequest(req, res, body);
  if (id !== undefined) return answer(res, 404, -32001, "Session not found");
  if (req.method !== "POST" || !isInitializeRequest(body))
    return answer(res, 400, -32000, "Bad Request: no session; initialize first");

  const server = scenarioServer(changes);
  const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    eventStore: memoryEventStore(),
    retryInterval: 1000,
    onsessioninitialized: (sessionId) => {
      sessions.set(sessionId, { transport, server });
    },
  });
  transport.onclose = () => {
    if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    server.close().catch(report);
  };
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

const http = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    report(error instanceof Error ? error : new Error(String(error)));
    if (!res.headersSent) answer(res, 500, -32603, "Internal server error");
  });
});
http.listen(Number(flag("port", "0")), "127.0.0.1", () => {
  const { port } = http.address() as AddressInfo;
  process.stdout.write(`listening http://127.0.0.1:${port}/mcp\n`);
});
const stop = () => {
  http.closeAllConnections();
  Promise.all([modern.close(), ...[...sessions.values()].map((s) => s.transport.close())])
    .catch(report)
    .finally(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
