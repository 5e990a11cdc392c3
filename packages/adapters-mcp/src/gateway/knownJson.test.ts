import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { knownListLine, rememberJson, serializeMessage } from "./knownJson.js";

// Bench 5b: a served tool list is serialised once per view and its bytes are reused for every
// tools/list response; what the client reads must be exactly what JSON.stringify would give.

const tools = [
  { name: "a__one", description: 'Ünïcode — and "quotes"\n', inputSchema: { type: "object" } },
  { name: "a__two", inputSchema: { type: "object", properties: { x: { type: "string" } } } },
];
rememberJson(tools, JSON.stringify(tools));

const response = (id: string | number, result: Record<string, unknown>) =>
  ({ result, jsonrpc: "2.0", id }) as unknown as JSONRPCMessage;

const joined = (line: [Buffer, string]) => Buffer.concat([line[0], Buffer.from(line[1])]);

describe("a remembered tool list's response", () => {
  it("is serialised as JSON.stringify would, for numeric and string ids", () => {
    for (const id of [7, 'req-"7"', 0]) {
      const message = response(id, { tools });
      expect(serializeMessage(message)).toBe(JSON.stringify(message));
      const line = knownListLine(message)!;
      expect(joined(line).toString("utf8")).toBe(`${JSON.stringify(message)}\n`);
    }
  });

  it("reuses the list's encoded bytes from one response to the next", () => {
    const first = knownListLine(response(1, { tools }))!;
    const second = knownListLine(response(2, { tools }))!;
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe("2}\n");
  });

  it("anything else is stringified whole: another list, a page with a cursor, a notification", () => {
    const other = [...tools];
    const messages = [
      response(1, { tools: other }),
      response(2, { tools, nextCursor: "c" }),
      response(3, { prompts: tools }),
      { jsonrpc: "2.0", method: "notifications/tools/list_changed" } as JSONRPCMessage,
    ];
    for (const message of messages) {
      expect(knownListLine(message)).toBeUndefined();
      expect(serializeMessage(message)).toBe(JSON.stringify(message));
    }
  });
});
