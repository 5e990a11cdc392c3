#!/usr/bin/env node
// A bare MCP stdio proxy built from the SDK alone (no registry, no log): one upstream,
// tools/list and tools/call forwarded as they are. It prices the extra stdio hop any
// out-of-process gateway pays, so the gateway's own cost can be told apart from it.
// Usage: node sdkProxy.js <upstream script> [upstream args…]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const upstream = new Client({ name: "sdk-proxy", version: "1.0.0" });
await upstream.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: process.argv.slice(2),
    stderr: "ignore",
  }),
);
const server = new Server({ name: "sdk-proxy", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, (request) => upstream.listTools(request.params));
server.setRequestHandler(CallToolRequestSchema, async (request) =>
  upstream.callTool(request.params),
);
await server.connect(new StdioServerTransport());
process.stdin.on("end", () => void upstream.close().then(() => process.exit(0)));
