import type { IncomingMessage, ServerResponse } from "node:http";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/core";
import type {
  JSONRPCMessage,
  JSONRPCRequest,
  RequestId,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/server";
import {
  isInitializeRequest,
  isJSONRPCRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { isPlainRequest } from "./isPlainRequest.js";
import { serializeMessage as serialize } from "./knownJson.js";

interface PostStream {
  res: ServerResponse;
  /** Request ids of this POST still awaiting their response. */
  pending: Set<RequestId>;
  /** Whether it became an SSE stream (something other than its one response went first). */
  sse: boolean;
  /** A batch of several requests always streams. */
  batch: boolean;
}

export interface NodeHttpTransportOptions {
  sessionIdGenerator: () => string;
  onsessioninitialized?: (sessionId: string) => void;
}

/**
 * The server side of MCP's streamable HTTP on Node's own `http` objects (stateful: one
 * session id per client). A POST carrying one request is answered with `application/json`
 * when its response is the first thing to send, and becomes an SSE stream as soon as the
 * server sends something related first (progress, log messages, sampling, elicitation), so
 * both are what the specification allows. The SDK's transport converts every request to a
 * web-standard Request and pipes a web ReadableStream back: on this machine that is most of
 * a relayed call's cost (decisions: Gateway transparency).
 */
export class NodeHttpTransport implements Transport {
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];

  readonly #options: NodeHttpTransportOptions;
  readonly #streams = new Map<RequestId, PostStream>();
  #standalone: ServerResponse | null = null;
  #started = false;
  #closed = false;

  constructor(options: NodeHttpTransportOptions) {
    this.#options = options;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error("NodeHttpTransport already started");
    this.#started = true;
  }

  /** Handles one HTTP request of this session; `body` is the parsed POST body. */
  async handleRequest(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
    if (req.method === "POST") return this.#post(req, res, body);
    if (req.method === "GET") return this.#get(req, res);
    if (req.method === "DELETE") {
      if (!this.#checkSession(req, res)) return;
      await this.close();
      res.writeHead(200).end();
      return;
    }
    res.writeHead(405, { allow: "GET, POST, DELETE", "content-type": "application/json" });
    res.end(rpcError(-32000, "Method not allowed."));
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const isResponse = "id" in message && !("method" in message);
    if (isResponse) {
      const id = (message as { id: RequestId }).id;
      const stream = this.#streams.get(id);
      if (!stream) throw new Error(`no open request ${String(id)} to answer on this MCP session`);
      this.#streams.delete(id);
      stream.pending.delete(id);
      if (!stream.sse && !stream.batch) {
        stream.res.writeHead(200, this.#headers("application/json"));
        stream.res.end(serialize(message));
        return;
      }
      this.#write(stream, message);
      if (stream.pending.size === 0) stream.res.end();
      return;
    }
    const related = options?.relatedRequestId;
    const stream = related === undefined ? undefined : this.#streams.get(related);
    if (stream) {
      this.#write(stream, message);
      return;
    }
    // Not tied to an open request: the standalone GET stream, if the client opened one.
    if (this.#standalone) this.#standalone.write(event(message));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const stream of new Set(this.#streams.values())) stream.res.end();
    this.#streams.clear();
    this.#standalone?.end();
    this.#standalone = null;
    this.onclose?.();
  }

  #write(stream: PostStream, message: JSONRPCMessage): void {
    if (!stream.sse) {
      stream.sse = true;
      stream.res.writeHead(200, this.#headers("text/event-stream"));
    }
    stream.res.write(event(message));
  }

  #headers(contentType: string): Record<string, string> {
    const headers: Record<string, string> = { "content-type": contentType };
    if (contentType === "text/event-stream") {
      headers["cache-control"] = "no-cache";
      headers.connection = "keep-alive";
    }
    if (this.sessionId !== undefined) headers["mcp-session-id"] = this.sessionId;
    return headers;
  }

  async #post(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const accept = req.headers.accept ?? "";
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
      return fail(
        res,
        406,
        -32000,
        "Not Acceptable: Client must accept both application/json and text/event-stream",
      );
    }
    if (!(req.headers["content-type"] ?? "").includes("application/json")) {
      return fail(
        res,
        415,
        -32000,
        "Unsupported Media Type: Content-Type must be application/json",
      );
    }
    // One plain request (every call and list) skips the three zod parses below (decisions: Performance).
    if (isPlainRequest(body)) {
      if (!this.#checkSession(req, res) || !checkProtocolVersion(req, res)) return;
      return this.#open(res, [body], [body]);
    }
    const raw = Array.isArray(body) ? body : [body];
    const messages: JSONRPCMessage[] = [];
    for (const m of raw) {
      const parsed = JSONRPCMessageSchema.safeParse(m);
      if (!parsed.success) return fail(res, 400, -32700, "Parse error: Invalid JSON-RPC message");
      messages.push(parsed.data);
    }
    if (messages.some(isInitializeRequest)) {
      if (this.sessionId !== undefined)
        return fail(res, 400, -32600, "Invalid Request: Server already initialized");
      if (messages.length > 1)
        return fail(
          res,
          400,
          -32600,
          "Invalid Request: Only one initialization request is allowed",
        );
      this.sessionId = this.#options.sessionIdGenerator();
      this.#options.onsessioninitialized?.(this.sessionId);
    } else if (!this.#checkSession(req, res) || !checkProtocolVersion(req, res)) {
      return;
    }
    this.#open(res, messages, messages.filter(isJSONRPCRequest));
  }

  /** Hands a POST's checked messages to the server, answering on `res` (202 when none is a request). */
  #open(res: ServerResponse, messages: JSONRPCMessage[], requests: JSONRPCRequest[]): void {
    // No `MessageExtraInfo.request`: SDK 2 wants a web-standard Request there, the very
    // conversion this transport exists to avoid, and no gateway handler reads the headers
    // (`ctx.http?.req` is undefined on this transport, as on stdio).
    if (requests.length === 0) {
      res.writeHead(202).end();
      for (const m of messages) this.onmessage?.(m);
      return;
    }
    const stream: PostStream = {
      res,
      pending: new Set(requests.map((r) => r.id)),
      sse: false,
      batch: requests.length > 1,
    };
    for (const r of requests) this.#streams.set(r.id, stream);
    res.on("close", () => {
      for (const id of stream.pending)
        if (this.#streams.get(id) === stream) this.#streams.delete(id);
    });
    for (const m of messages) this.onmessage?.(m);
  }

  async #get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!(req.headers.accept ?? "").includes("text/event-stream"))
      return fail(res, 406, -32000, "Not Acceptable: Client must accept text/event-stream");
    if (!this.#checkSession(req, res) || !checkProtocolVersion(req, res)) return;
    if (this.#standalone)
      return fail(res, 409, -32000, "Conflict: Only one SSE stream is allowed per session");
    res.writeHead(200, this.#headers("text/event-stream"));
    res.flushHeaders();
    this.#standalone = res;
    res.on("close", () => {
      if (this.#standalone === res) this.#standalone = null;
    });
  }

  #checkSession(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.sessionId === undefined) {
      fail(res, 400, -32000, "Bad Request: Server not initialized");
      return false;
    }
    const header = req.headers["mcp-session-id"];
    const id = Array.isArray(header) ? header[0] : header;
    if (id === undefined) {
      fail(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
      return false;
    }
    if (id !== this.sessionId) {
      fail(res, 404, -32001, "Session not found");
      return false;
    }
    return true;
  }
}

function checkProtocolVersion(req: IncomingMessage, res: ServerResponse): boolean {
  const header = req.headers["mcp-protocol-version"];
  const version = Array.isArray(header) ? header[0] : header;
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    fail(
      res,
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    );
    return false;
  }
  return true;
}

function event(message: JSONRPCMessage): string {
  return `event: message\ndata: ${serialize(message)}\n\n`;
}

function rpcError(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
}

function fail(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" }).end(rpcError(code, message));
}
