import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  isMcpToolDefinition,
  McpToolDefinitionSchema,
  mcpToolProblem,
} from "./mcpToolDefinition.js";

const anyJson = fc.jsonValue({ maxDepth: 3 });
const or = <T>(good: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 15, arbitrary: good }, { weight: 1, arbitrary: anyJson });

const jsonSchema = or(
  fc.record(
    {
      type: or(fc.constantFrom("object", "object", "object", "object", "string")),
      properties: or(
        fc.dictionary(fc.constantFrom("a", "b", "__proto__"), or(fc.constant({ type: "string" }))),
      ),
      required: or(fc.array(or(fc.constantFrom("a", "b")), { maxLength: 2 })),
      additionalProperties: fc.boolean(),
    },
    { requiredKeys: [] },
  ),
);

/** Tool-like values: mostly the right shape, each field sometimes any JSON. */
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
                theme: or(fc.constantFrom("light", "dark", "light", "dim")),
              },
              { requiredKeys: ["src"] },
            ),
          ),
          { maxLength: 2 },
        ),
      ),
      _meta: or(fc.dictionary(fc.string(), anyJson)),
      extra: anyJson,
    },
    { requiredKeys: ["name", "inputSchema"] },
  )
  // Read back from JSON text, as tools arrive: `__proto__` becomes an own key.
  .map((t) => JSON.parse(JSON.stringify(t)) as unknown);

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
