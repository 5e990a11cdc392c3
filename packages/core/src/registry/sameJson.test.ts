import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sameJson, sameTool } from "./sameJson.js";

/** Key order aside, two JSON values are equal when their canonical texts are. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

const json = fc.jsonValue({ maxDepth: 4 });
/** A value and a copy that is the same or differs a little (a changed leaf, a key more). */
const pair = json.chain((a) =>
  fc.oneof(
    fc.constant([a, JSON.parse(JSON.stringify(a)) as unknown] as const),
    json.map((b) => [a, b] as const),
    fc.constant([a, JSON.parse(JSON.stringify({ x: a })) as unknown] as const),
  ),
);
const tool = fc.record(
  {
    name: fc.constantFrom("a", "b"),
    title: fc.constantFrom("T", "U"),
    description: fc.constantFrom("d", "e"),
    inputSchema: fc.record(
      {
        type: fc.constantFrom("object", "string"),
        properties: fc.dictionary(fc.constantFrom("p", "q"), json, { maxKeys: 2 }),
        required: fc.array(fc.constantFrom("p", "q"), { maxLength: 2 }),
        extra: json,
      },
      { requiredKeys: ["type"] },
    ),
    annotations: json,
  },
  { requiredKeys: ["name", "inputSchema"] },
);

describe("sameJson / sameTool (refetch reuse)", () => {
  it("sameJson is JSON equality, key order aside", () => {
    fc.assert(
      fc.property(pair, ([a, b]) => {
        expect(sameJson(a, b)).toBe(canonical(a) === canonical(b));
      }),
      { numRuns: 2000 },
    );
  });

  it("sameTool agrees with sameJson on tools", () => {
    let equal = 0;
    fc.assert(
      fc.property(tool, tool, fc.boolean(), (a, b, copy) => {
        const x = JSON.parse(JSON.stringify(a)) as Record<string, unknown>;
        const y = (copy ? JSON.parse(JSON.stringify(a)) : JSON.parse(JSON.stringify(b))) as Record<
          string,
          unknown
        >;
        const expected = canonical(x) === canonical(y);
        if (expected) equal++;
        expect(sameTool(x, y)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
    expect(equal).toBeGreaterThan(500);
  });
});
