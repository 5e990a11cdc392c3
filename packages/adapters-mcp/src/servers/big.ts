#!/usr/bin/env node
// Test server for large messages: `measure` answers how many characters its `value` has
// (a 12 MB tools/call), `blob` answers `mb` MiB of text (a large reply); `--list-mb N` puts
// an N MiB description in tools/list. It reads messages of up to 256 MiB itself.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { flag, objectSchema, text, toolServer, unknownTool } from "./_serve.js";

const MIB = 1024 * 1024;
const listMb = Number(flag("list-mb", "0"));

const server = toolServer({
  name: "big",
  list: () => ({
    tools: [
      {
        name: "measure",
        description: listMb > 0 ? "x".repeat(listMb * MIB) : "Counts the characters of value",
        inputSchema: objectSchema({ value: { type: "string" } }),
      },
      {
        name: "blob",
        description: "Answers mb MiB of text",
        inputSchema: objectSchema({ mb: { type: "number" } }),
      },
    ],
  }),
  call: (name, args) => {
    if (name === "measure") return text(`received ${String(args.value ?? "").length} characters`);
    if (name === "blob") return text("b".repeat(Math.round(Number(args.mb ?? 1) * MIB)));
    return unknownTool(name);
  },
});
await server.connect(new StdioServerTransport(undefined, undefined, { maxBufferSize: 256 * MIB }));
process.stdin.on("end", () => process.exit(0));
