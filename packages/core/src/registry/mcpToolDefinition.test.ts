import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anyJson, toolLike } from "../../testing/toolArbitrary.js";
import {
  isMcpToolDefinition,
  McpToolDefinitionSchema,
  mcpToolProblem,
} from "./mcpToolDefinition.js";

describe("R9 (issue 10.3) the MCP tool definition check", () => {
  it("R9 the hand-written check accepts exactly what the schema accepts", () => {
    let valid = 0;
    fc.assert(
      fc.property(fc.oneof({ weight: 4, arbitrary: toolLike }, anyJson), (tool) => {
        const expected = McpToolDefinitionSchema.safeParse(tool).success;
        expect(isMcpToolDefinition(tool)).toBe(expected);
        expect(mcpToolProblem(tool) === null).toBe(expected);
        if (expected) valid++;
      }),
      { numRuns: 2000 },
    );
    // Both verdicts occur often enough to mean something.
    expect(valid).toBeGreaterThan(100);
    expect(valid).toBeLessThan(1900);
  });

  it.each([
    ["an empty inputSchema", { name: "t", inputSchema: {} }, "inputSchema.type"],
    [
      "properties without a type",
      { name: "t", inputSchema: { properties: {} } },
      "inputSchema.type",
    ],
    [
      "annotations that are a string",
      { name: "t", inputSchema: { type: "object" }, annotations: "yes" },
      "annotations",
    ],
    [
      "a hint that is not a boolean",
      { name: "t", inputSchema: { type: "object" }, annotations: { readOnlyHint: "yes" } },
      "annotations.readOnlyHint",
    ],
    [
      "a property schema that is a string",
      { name: "t", inputSchema: { type: "object", properties: { a: "string" } } },
      "inputSchema.properties.a",
    ],
    [
      "an outputSchema of type array",
      { name: "t", inputSchema: { type: "object" }, outputSchema: { type: "array" } },
      "outputSchema.type",
    ],
    [
      "required that is not a list",
      { name: "t", inputSchema: { type: "object", required: "a" } },
      "inputSchema.required",
    ],
  ])("R9 %s is refused, and the reason names the field", (_, tool, path) => {
    expect(isMcpToolDefinition(tool)).toBe(false);
    expect(mcpToolProblem(tool)).toMatch(new RegExp(`^${path.replaceAll(".", "\\.")}: `));
  });

  it("R9 a minimal tool and a full one pass", () => {
    expect(mcpToolProblem({ name: "t", inputSchema: { type: "object" } })).toBeNull();
    expect(
      mcpToolProblem({
        name: "t",
        title: "T",
        description: "d",
        inputSchema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
        outputSchema: { type: "object" },
        annotations: { readOnlyHint: true },
        execution: { taskSupport: "optional" },
        icons: [{ src: "data:image/png;base64,", sizes: ["48x48"], theme: "dark" }],
        _meta: { ui: { visibility: ["model"] } },
        vendorField: 1,
      }),
    ).toBeNull();
  });
});
