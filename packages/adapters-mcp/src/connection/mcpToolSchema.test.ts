import { Client } from "@modelcontextprotocol/client";
// The SDK 1.x ToolSchema: the legacy clients (most of the gateway's) apply it to tools/list.
import { ToolSchema as LegacyToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { InMemoryTransport, Server } from "@modelcontextprotocol/server";
import { isMcpToolDefinition, McpToolDefinitionSchema } from "@toolledger/core";
import { anyJson, toolLike } from "@toolledger/core/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Issue 10.3: the core (which has no SDK) checks tools with its own zod schema; this keeps it
// in step with the SDKs' Tool schema, the one SDK clients apply to every tools/list result.
// The gateway's clients speak the 2025-11-25 wire with SDK 1.x or 2.x: SDK 1.x's schema is the
// stricter (SDK 2 also takes an `outputSchema` without `"type": "object"` at its root), so the
// core agrees with it exactly, and whatever the core accepts a real SDK 2 client reading a
// tools/list accepts too.

let listed: unknown;
let client: Client;
let server: Server;

/** Whether an SDK 2 client on the 2025-11-25 wire accepts a tools/list with `tool` in it. */
async function v2Accepts(tool: unknown): Promise<boolean> {
  listed = tool;
  return client.request({ method: "tools/list" }).then(
    () => true,
    () => false,
  );
}

beforeAll(async () => {
  server = new Server({ name: "tools", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", () => ({ tools: [listed] }) as never);
  client = new Client({ name: "check", version: "1" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
});

afterAll(async () => {
  await client.close();
  await server.close();
});

describe("issue 10.3 the core's MCP Tool schema agrees with the SDKs' Tool schema", () => {
  it("R9 every tool-like JSON value is valid for the core exactly when the SDK accepts it", async () => {
    let valid = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 4, arbitrary: toolLike }, anyJson), async (tool) => {
        const sdk = LegacyToolSchema.safeParse(tool).success;
        expect(McpToolDefinitionSchema.safeParse(tool).success).toBe(sdk);
        expect(isMcpToolDefinition(tool)).toBe(sdk);
        if (sdk) {
          expect(await v2Accepts(tool)).toBe(true);
          valid++;
        }
      }),
      { numRuns: 3000 },
    );
    expect(valid).toBeGreaterThan(150);
  });

  it.each([
    [{ name: "t", inputSchema: {} }],
    [{ name: "t", inputSchema: { properties: {} } }],
    [{ name: "t", inputSchema: { type: "object" }, annotations: "yes" }],
    [{ name: "t" }],
  ])("R9 the issue's shapes fail both: %j", async (tool) => {
    expect(LegacyToolSchema.safeParse(tool).success).toBe(false);
    expect(await v2Accepts(tool)).toBe(false);
    expect(isMcpToolDefinition(tool)).toBe(false);
  });

  it("R9 an outputSchema without a root type fails SDK 1.x clients, so the core too", async () => {
    const tool = { name: "t", inputSchema: { type: "object" }, outputSchema: {} };
    expect(LegacyToolSchema.safeParse(tool).success).toBe(false);
    expect(isMcpToolDefinition(tool)).toBe(false);
  });
});
