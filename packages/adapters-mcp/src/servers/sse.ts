#!/usr/bin/env node
// Test server over the legacy HTTP+SSE transport (GET /sse for the stream, POST /messages),
// as older hosted MCP servers still serve it. `--port 0` picks a port; prints
// `listening <url of /sse>` on stdout once it accepts connections.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SSEServerTransport } from "@modelcontextprotocol/server-legacy/sse";
import { flag, objectSchema, text, toolServer, unknownTool } from "./internal/serve.js";

const transports = new Map<string, SSEServerTransport>();

const http = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://localhost");
  const fail = (error: unknown) => {
    process.stderr.write(`sse test server: ${String(error)}\n`);
    if (!res.headersSent) res.writeHead(500).end(String(error));
  };
  if (req.method === "GET" && url.pathname === "/sse") {
    const transport = new SSEServerTransport("/messages", res);
    transports.set(transport.sessionId, transport);
    res.on("close", () => transports.delete(transport.sessionId));
    // Reports whether the header arrived on the stream request, never its value.
    const keyed = req.headers["x-api-key"] !== undefined;
    const server = toolServer({
      name: "sse-test",
      list: () => ({
        tools: ["echo", "check_header"].map((name) => ({
          name,
          description: `sse server tool ${name}`,
          inputSchema: objectSchema({ value: { type: "string" } }),
        })),
      }),
      call: (name, args) => {
        if (name === "echo") return text(`sse echo:${String(args.value ?? "")}`);
        if (name === "check_header") return text(keyed ? "x-api-key present" : "x-api-key missing");
        return unknownTool(name);
      },
    });
    server.connect(transport).catch(fail);
    return;
  }
  if (req.method === "POST" && url.pathname === "/messages") {
    const transport = transports.get(url.searchParams.get("sessionId") ?? "");
    if (!transport) {
      res.writeHead(404).end("unknown session");
      return;
    }
    transport.handlePostMessage(req, res).catch(fail);
    return;
  }
  res.writeHead(404).end(`no endpoint at ${url.pathname}`);
});

http.listen(Number(flag("port", "0")), "127.0.0.1", () => {
  const { port } = http.address() as AddressInfo;
  process.stdout.write(`listening http://127.0.0.1:${port}/sse\n`);
});
const stop = () => {
  http.closeAllConnections();
  http.close(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
