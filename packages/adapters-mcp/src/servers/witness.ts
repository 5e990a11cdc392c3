#!/usr/bin/env node
// Test server: a witness of what ran. Each `witness` call appends its id to the file named by the
// first argument and syncs it before it answers, so a test can count what the upstream received
// against what the log recorded (L1), whatever happened to the gateway in between.
import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const file = process.argv[2];
if (!file) throw new Error("usage: witness.js <file>: the file each call's id is appended to");
const server = new McpServer({ name: "witness", version: "0.1.0" });

server.registerTool(
  "witness",
  {
    description: "Record that this call ran: its id is appended to the witness file.",
    inputSchema: z.object({ id: z.string().min(1) }),
  },
  ({ id }) => {
    const fd = openSync(file, "a");
    try {
      writeSync(fd, `${id}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return { content: [{ type: "text" as const, text: `witnessed ${id}` }] };
  },
);

await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));
