import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CommandSchema } from "./command.js";
import { parseCallCommand } from "./parseCallCommand.js";

// E6/C4: the hand check of StartCall / FinishCall never accepts what the schema refuses,
// and accepts the commands a host builds for every call (so they skip zod).

const anyJson = fc.jsonValue({ maxDepth: 2 });
const odd = fc.constantFrom(undefined, null, Number.NaN, Number.POSITIVE_INFINITY, -1, -0, "", 0);
/** The right kind of value most of the time, anything else otherwise. */
const or = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 8, arbitrary: good },
    { weight: 1, arbitrary: anyJson },
    { weight: 1, arbitrary: odd },
  );
const optional = (good: fc.Arbitrary<unknown>) => fc.option(or(good), { nil: undefined });

const startCall = fc.record(
  {
    type: fc.constant("StartCall"),
    at: optional(fc.string()),
    callId: or(fc.string()),
    name: or(fc.string()),
    arguments: optional(anyJson),
    includeHidden: optional(fc.boolean()),
    extra: anyJson,
  },
  { requiredKeys: ["type"] },
);
const finishCall = fc.record(
  {
    type: fc.constant("FinishCall"),
    at: optional(fc.string()),
    callId: or(fc.string()),
    outcome: or(
      fc.constantFrom("ok", "tool_error", "refused", "timeout", "cancelled", "unavailable", "OK"),
    ),
    durationMs: or(fc.double()),
    reason: optional(fc.string()),
    error: optional(fc.string()),
    result: optional(anyJson),
    extra: anyJson,
  },
  { requiredKeys: ["type"] },
);

describe("parseCallCommand (E6, C4)", () => {
  it("accepts only what the command schema accepts", () => {
    fc.assert(
      fc.property(fc.oneof(startCall, finishCall), (command) => {
        const fast = parseCallCommand(command);
        if (fast !== null) expect(CommandSchema.safeParse(command).success).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("accepts the commands a host records for every call", () => {
    const at = new Date(0).toISOString();
    for (const command of [
      { type: "StartCall", at, callId: "c1", name: "github__create_issue" },
      { type: "StartCall", at, callId: "c1", name: "x", arguments: { a: 1 }, includeHidden: true },
      { type: "FinishCall", at, callId: "c1", outcome: "ok", durationMs: 0.25 },
      { type: "FinishCall", callId: "c1", outcome: "tool_error", durationMs: 3, error: "boom" },
      {
        type: "FinishCall",
        callId: "c1",
        outcome: "refused",
        durationMs: 0,
        reason: "X",
        result: [],
      },
    ]) {
      expect(CommandSchema.safeParse(command).success).toBe(true);
      expect(parseCallCommand(command)).toBe(command);
    }
  });

  it("leaves every refusal to the schema, which words it", () => {
    for (const command of [
      { type: "StartCall", callId: "", name: "x" },
      { type: "StartCall", callId: "c", name: 1 },
      { type: "StartCall", callId: "c", name: "x", surplus: true },
      { type: "FinishCall", callId: "c", outcome: "ok", durationMs: -1 },
      { type: "FinishCall", callId: "c", outcome: "ok", durationMs: Number.NaN },
      { type: "FinishCall", callId: "c", outcome: "done", durationMs: 1 },
      { type: "FinishCall", callId: "c", outcome: "ok", durationMs: 1, at: 5 },
      Object.assign(Object.create({ inherited: 1 }), { type: "StartCall", callId: "c", name: "x" }),
    ]) {
      expect(parseCallCommand(command)).toBeNull();
    }
  });
});
