import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { rememberJson } from "./knownJson.js";
import { StdioLineServerTransport } from "./stdioServerTransport.js";

// Bench 5b: a served tool list leaves from the bytes kept for it; on the wire it is the same
// line, in the same order with whatever else is sent.

const tools = Array.from({ length: 300 }, (_, i) => ({
  name: `s__tool_${i}`,
  description: `Tool ${i} — does ${"a thing ".repeat(20)}`,
  inputSchema: { type: "object" },
}));
rememberJson(tools, JSON.stringify(tools));

function wire() {
  const stdout = new PassThrough({ highWaterMark: 1024 });
  const chunks: Buffer[] = [];
  stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
  const transport = new StdioLineServerTransport(new PassThrough(), stdout);
  const lines = () =>
    Buffer.concat(chunks)
      .toString("utf8")
      .split("\n")
      .filter((l) => l !== "");
  return { transport, lines };
}

const listed = (id: number) => ({ result: { tools }, jsonrpc: "2.0", id }) as JSONRPCMessage;

describe("StdioLineServerTransport, a served tool list", () => {
  it("is written as JSON.stringify's line, once per response", async () => {
    const { transport, lines } = wire();
    await transport.send(listed(1));
    await transport.send(listed(2));
    expect(lines()).toEqual([JSON.stringify(listed(1)), JSON.stringify(listed(2))]);
  });

  it("keeps the order of what was sent in the same turn", async () => {
    const { transport, lines } = wire();
    const changed = { jsonrpc: "2.0", method: "notifications/tools/list_changed" } as const;
    await Promise.all([transport.send(changed), transport.send(listed(3))]);
    await transport.send(listed(4));
    expect(lines()).toEqual([
      JSON.stringify(changed),
      JSON.stringify(listed(3)),
      JSON.stringify(listed(4)),
    ]);
  });
});
