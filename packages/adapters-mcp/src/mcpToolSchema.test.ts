import { ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { isMcpToolDefinition, McpToolDefinitionSchema } from "@toolledger/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

// Issue 10.3: the core (which has no SDK) checks tools with its own zod schema; this keeps it
// in step with the SDK's ToolSchema, the one SDK clients apply to every tools/list result.

const anyJson = fc.jsonValue({ maxDepth: 3 });
const or = <T>(good: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 15, arbitrary: good }, { weight: 1, arbitrary: anyJson });
const jsonSchema = or(
  fc.record(
    {
      type: or(fc.constantFrom("object", "object", "object", "string")),
      properties: or(
        fc.dictionary(fc.constantFrom("a", "b", "__proto__"), or(fc.constant({ type: "string" }))),
      ),
      required: or(fc.array(or(fc.constantFrom("a", "b")), { maxLength: 2 })),
      additionalProperties: fc.boolean(),
    },
    { requiredKeys: [] },
  ),
);
const toolLike = fc
  .record(
    {
      name: or(fc.string()),
      title: or(fc.string()),
      description: or(fc.string()),
      inputSchema: jsonSchema,
      outputSchema: jsonSchema,
      annotations: or(
        fc.record(
          {
            title: or(fc.string()),
            readOnlyHint: or(fc.boolean()),
            destructiveHint: or(fc.boolean()),
            idempotentHint: or(fc.boolean()),
            openWorldHint: or(fc.boolean()),
          },
          { requiredKeys: [] },
        ),
      ),
      execution: or(
        fc.record({
          taskSupport: or(fc.constantFrom("required", "optional", "forbidden", "never")),
        }),
      ),
      icons: or(
        fc.array(
          or(
            fc.record(
              {
                src: or(fc.string()),
                mimeType: or(fc.string()),
                sizes: or(fc.array(fc.string())),
                theme: or(fc.constantFrom("light", "dark", "dim")),
              },
              { requiredKeys: ["src"] },
            ),
          ),
          { maxLength: 2 },
        ),
      ),
      _meta: or(fc.dictionary(fc.string(), anyJson)),
      vendor: anyJson,
    },
    { requiredKeys: ["name", "inputSchema"] },
  )
  .map((t) => JSON.parse(JSON.stringify(t)) as unknown);

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
