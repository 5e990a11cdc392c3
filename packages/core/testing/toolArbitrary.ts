// Issue 10.3: tool-like values for property tests of the MCP Tool check (the core's own
// check against its schema, and the schema against the SDK's ToolSchema).
import fc from "fast-check";

/** Any JSON value, shallow enough to stay cheap. */
export const anyJson = fc.jsonValue({ maxDepth: 3 });

/** Mostly `good`, sometimes any JSON value. */
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
export const toolLike: fc.Arbitrary<unknown> = fc
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
