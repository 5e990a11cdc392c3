#!/usr/bin/env node
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Server } from "@modelcontextprotocol/server";
// A bare MCP stdio proxy built from the SDK alone (no registry, no log): one upstream,
// tools/list and tools/call forwarded as they are. It prices the extra stdio hop any
// out-of-process gateway pays, so the gateway's own cost can be told apart from it.
// With `--write-ahead <file>`, each tools/call is first recorded in a SQLite file (WAL,
// synchronous=FULL, one row in its own transaction) and forwarded once that commit returns:
// the floor of any hop that makes a call's record durable before the call goes upstream
// (L1), on this machine's disk (bench 5a's baseline).
// Usage: node sdkProxy.js [--write-ahead <file>] <upstream script> [upstream args…]
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import Database from "better-sqlite3";

let args = process.argv.slice(2);
let record: ((name: string, args: unknown) => void) | null = null;
if (args[0] === "--write-ahead") {
  const db = new Database(args[1]!);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec(
    "CREATE TABLE IF NOT EXISTS calls (id INTEGER PRIMARY KEY, at TEXT NOT NULL, name TEXT NOT NULL, arguments TEXT)",
  );
  const insert = db.prepare("INSERT INTO calls (at, name, arguments) VALUES (?, ?, ?)");
  record = (name, callArgs) => {
    insert.run(new Date().toISOString(), name, JSON.stringify(callArgs ?? null));
  };
  args = args.slice(2);
}

const upstream = new Client({ name: "sdk-proxy", version: "1.0.0" });
await upstream.connect(
  new StdioClientTransport({
    command: process.execPath,
    args,
    stderr: "ignore",
  }),
);
const server = new Server({ name: "sdk-proxy", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler("tools/list", (request) => upstream.listTools(request.params));
server.setRequestHandler("tools/call", async (request) => {
  record?.(request.params.name, request.params.arguments);
  return upstream.callTool(request.params);
});
await server.connect(new StdioServerTransport());
process.stdin.on("end", () => void upstream.close().then(() => process.exit(0)));
