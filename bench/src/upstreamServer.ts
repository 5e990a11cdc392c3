#!/usr/bin/env node
import type { Tool } from "@modelcontextprotocol/server";
import { Server } from "@modelcontextprotocol/server";
// An upstream MCP stdio server for the gateway benchmarks: `count` realistic tools (the
// generator's) whose calls answer at once, so only the path to it is timed.
// Usage: node upstreamServer.js <index> <count>
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { makeTools } from "./makeTools.js";

const index = Number(process.argv[2] ?? 0);
const count = Number(process.argv[3] ?? 100);
const tools = makeTools(index, count) as Tool[];
const names = new Set(tools.map((t) => t.name));

const server = new Server(
  { name: `upstream-${index}`, version: "1.0.0" },
  { capabilities: { tools: {} } },
);
server.setRequestHandler("tools/list", () => ({ tools }));
server.setRequestHandler("tools/call", (request) => {
  const { name, arguments: args } = request.params;
  if (!names.has(name))
    return { content: [{ type: "text", text: `unknown tool ${name}` }], isError: true };
  return { content: [{ type: "text", text: `${name} ok ${JSON.stringify(args ?? {})}` }] };
});
await server.connect(new StdioServerTransport());
