import { ToolSchema } from "@modelcontextprotocol/core";
import { isMcpToolDefinition, McpToolDefinitionSchema } from "@toolledger/core";
import { anyJson, toolLike } from "@toolledger/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

// Issue 10.3: the core (which has no SDK) checks tools with its own zod schema; this keeps it
// in step with the SDK's ToolSchema, the one SDK clients apply to every tools/list result.

describe("issue 10.3 the core's MCP Tool schema agrees with the SDK's ToolSchema", () => {
  it("R9 every tool-like JSON value is valid for the core exactly when the SDK accepts it", () => {
    let valid = 0;
    fc.assert(
      fc.property(fc.oneof({ weight: 4, arbitrary: toolLike }, anyJson), (tool) => {
        const sdk = ToolSchema.safeParse(tool).success;
        expect(McpToolDefinitionSchema.safeParse(tool).success).toBe(sdk);
        expect(isMcpToolDefinition(tool)).toBe(sdk);
        if (sdk) valid++;
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
  ])("R9 the issue's shapes fail both: %j", (tool) => {
    expect(ToolSchema.safeParse(tool).success).toBe(false);
    expect(isMcpToolDefinition(tool)).toBe(false);
  });
});
