import { JSONRPCMessageSchema, JSONRPCRequestSchema } from "@modelcontextprotocol/core";
import { isInitializeRequest } from "@modelcontextprotocol/server";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isPlainRequest } from "./isPlainRequest.js";

// JSON-shaped messages near a request's shape: right and wrong keys, ids, methods and params.
const id = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(2 ** 53, -0, Number.NaN, null, true),
);
const params = fc.oneof(
  fc.dictionary(fc.string(), fc.jsonValue()),
  fc.record({ _meta: fc.jsonValue(), name: fc.string() }, { requiredKeys: ["name"] }),
  fc.jsonValue(),
  fc.constant(Object.create(null) as object),
);
const fields = {
  jsonrpc: fc.constantFrom("2.0", "2.0", "1.0", 2),
  id,
  method: fc.oneof(fc.constantFrom("tools/call", "tools/list", "initialize"), fc.string()),
  params,
  result: fc.jsonValue(),
  extra: fc.jsonValue(),
};
// Mostly near-valid requests (so wrong ids and params are reached), plus any mix of keys.
const message = fc.oneof(
  fc.record(fields, { requiredKeys: ["jsonrpc", "id", "method"] }),
  fc.record(
    { jsonrpc: fields.jsonrpc, id, method: fields.method, params },
    { requiredKeys: ["jsonrpc", "id", "method"] },
  ),
  fc.record(fields, { requiredKeys: [] }),
);

describe("isPlainRequest (the HTTP transport's fast path for one request)", () => {
  it("accepts only what JSONRPCRequestSchema accepts unchanged, never initialize", () => {
    fc.assert(
      fc.property(fc.oneof(message, fc.jsonValue()), (value) => {
        if (!isPlainRequest(value)) return;
        const parsed = JSONRPCRequestSchema.safeParse(value);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toStrictEqual(value);
        expect(JSONRPCMessageSchema.parse(value)).toStrictEqual(value);
        expect(isInitializeRequest(value)).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });

  it("takes the request a client sends for tools/call and tools/list", () => {
    const call = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "upstream0__echo", arguments: { text: "hi" } },
    };
    expect(isPlainRequest(call)).toBe(true);
    expect(isPlainRequest({ jsonrpc: "2.0", id: "a", method: "tools/list" })).toBe(true);
    // _meta (a progress token), batches and notifications go through zod.
    expect(
      isPlainRequest({ ...call, params: { ...call.params, _meta: { progressToken: 1 } } }),
    ).toBe(false);
    expect(isPlainRequest([call])).toBe(false);
    // A `__proto__` key JSON.parse made an own property of params (zod's copy drops it): zod decides.
    const proto = JSON.parse('{"jsonrpc":"2.0","id":0,"method":"x","params":{"__proto__":null}}');
    expect(isPlainRequest(proto)).toBe(false);
    expect(isPlainRequest({ jsonrpc: "2.0", method: "notifications/initialized" })).toBe(false);
    expect(isPlainRequest({ ...call, method: "initialize" })).toBe(false);
  });
});
