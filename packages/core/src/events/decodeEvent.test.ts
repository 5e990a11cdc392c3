import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeCommonEvent,
  decodeEvent,
  decodeEventOrThrow,
  EventDecodeError,
} from "./decodeEvent.js";
import { EVENT_TYPES, ToolledgerEventSchema } from "./events.js";

describe("E1/E2 decodeEvent", () => {
  it("E1 declares every event type of the minimum set", () => {
    // The minimum set (E1); later rules add more (G1's prompt and resource lists).
    expect(EVENT_TYPES).toEqual(
      expect.arrayContaining([
        "Cleared",
        "Compacted",
        "DeferralConfigured",
        "EnableToolsRequested",
        "EnableToolsResponded",
        "ExtensionAdded",
        "ExtensionRemoved",
        "ToolsFetchFailed",
        "ToolsFetched",
        "ToolsInvalidated",
        // C1, C3–C5
        "HostStarted",
        "ConversationStarted",
        "ConversationResumed",
        "ConversationClosed",
        "ToolCallStarted",
        "ToolCallFinished",
      ]),
    );
  });

  it("decodes a well-formed event and applies defaults", () => {
    const r = decodeEvent({
      type: "ExtensionAdded",
      v: 1,
      name: "github",
      kind: "stdio",
      configFingerprint: "sha256:x",
    });
    expect(r).toEqual({
      ok: true,
      event: {
        type: "ExtensionAdded",
        v: 1,
        name: "github",
        kind: "stdio",
        exposeUnprefixed: false,
        hidden: false,
        availableTools: [],
        configFingerprint: "sha256:x",
      },
    });
  });

  it("E2 an unknown type is a typed error naming the type and the known ones", () => {
    const r = decodeEvent({ type: "ToolsExploded", v: 1 });
    expect(r).toMatchObject({ ok: false, error: { code: "UNKNOWN_TYPE", path: "type" } });
    if (!r.ok) expect(r.error.message).toContain('"ToolsExploded"');
    if (!r.ok) expect(r.error.message).toContain("ToolsFetched");
  });

  it("E2 a newer schema version is a typed error that says to upgrade", () => {
    const r = decodeEvent({ type: "Cleared", v: 2 });
    expect(r).toMatchObject({ ok: false, error: { code: "UNSUPPORTED_VERSION", path: "v" } });
    if (!r.ok) expect(r.error.message).toMatch(/version 2.*supported version 1/);
  });

  it("names the failing field path", () => {
    const r = decodeEvent({
      type: "ToolsFetched",
      v: 1,
      extension: "a",
      startedAtVersion: 0,
      tools: [{ name: "ok" }, { name: 7 }],
    });
    expect(r).toMatchObject({ ok: false, error: { code: "INVALID_FIELD", path: "tools.1.name" } });
    expect(decodeEvent({ type: "Cleared" })).toMatchObject({
      ok: false,
      error: { code: "INVALID_FIELD", path: "v" },
    });
  });

  it("refuses what is not an object", () => {
    for (const bad of [null, 3, "x", [1]])
      expect(decodeEvent(bad)).toMatchObject({ ok: false, error: { code: "NOT_AN_OBJECT" } });
  });

  it("keeps unknown fields of a tool as sent (R9) but not unknown fields of an event", () => {
    const r = decodeEvent({
      type: "ToolsFetched",
      v: 1,
      extension: "a",
      startedAtVersion: 0,
      tools: [{ name: "t", inputSchema: {}, icons: [1] }],
      extra: true,
    });
    expect(r.ok && r.event.type === "ToolsFetched" && r.event.tools[0]).toEqual({
      name: "t",
      inputSchema: {},
      icons: [1],
    });
    expect(r.ok && "extra" in r.event).toBe(false);
  });

  it("decodeEventOrThrow throws an EventDecodeError with code, path and the caller's location", () => {
    expect(() => decodeEventOrThrow({ type: "Cleared", v: 9 }, "line 12")).toThrow(
      EventDecodeError,
    );
    try {
      decodeEventOrThrow({ type: "Cleared", v: 9 }, "line 12");
    } catch (e) {
      expect(e).toMatchObject({ code: "UNSUPPORTED_VERSION", path: "v" });
      expect((e as Error).message).toMatch(/^line 12: /);
    }
  });

  it("property: the fast path for common events gives exactly the schema's result, key order included", () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.constant(undefined), fc.constant(null));
    const candidate = fc.record(
      {
        type: fc.constantFrom("ToolsInvalidated", "ToolsInvalidated", "ToolsFetched", "Cleared"),
        v: fc.constantFrom(1, 1, 2, "1"),
        extension: fc.oneof(fc.string(), fc.string(), value),
        at: value,
        extra: value,
      },
      { requiredKeys: ["type"] },
    );
    let taken = 0;
    fc.assert(
      fc.property(candidate, (raw) => {
        const fast = decodeCommonEvent(raw);
        if (fast === undefined) return;
        taken++;
        const parsed = ToolledgerEventSchema.safeParse(raw);
        expect(parsed.success).toBe(true);
        expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed.data));
        expect(Object.keys(fast)).toEqual(Object.keys(parsed.data!));
      }),
      { numRuns: 2000 },
    );
    // About 5% of the candidates take the fast path; far fewer would mean it is never exercised.
    expect(taken).toBeGreaterThan(20);
  });

  it("property: the ToolsFetched fast path gives exactly the schema's result, key order included", () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constant(undefined));
    const json = fc.jsonValue({ maxDepth: 2 });
    const mostly = <T>(good: fc.Arbitrary<T>) =>
      fc.oneof({ weight: 20, arbitrary: good }, { weight: 1, arbitrary: fc.oneof(value, json) });
    const toolKeys = ["name", "title", "description", "inputSchema", "annotations", "_meta", "x"];
    const tool = fc
      .record(
        {
          name: fc.oneof({ weight: 30, arbitrary: fc.string() }, { weight: 1, arbitrary: value }),
          title: mostly(fc.string()),
          description: fc.oneof(
            { weight: 5, arbitrary: fc.string() },
            { weight: 1, arbitrary: value },
          ),
          inputSchema: json,
          annotations: json,
          _meta: fc.oneof(
            {
              weight: 20,
              arbitrary: fc.dictionary(fc.constantFrom("a", "b", "c", "d", "__proto__"), json, {
                maxKeys: 2,
              }),
            },
            { weight: 1, arbitrary: json },
          ),
          x: json,
        },
        { requiredKeys: ["name"] },
      )
      // Key order as a server might send it: sometimes the schema's, sometimes shuffled.
      .chain((t) =>
        fc
          .oneof(
            fc.constant(toolKeys),
            fc.shuffledSubarray(toolKeys, { minLength: toolKeys.length }),
          )
          .map((order) => {
            const out: Record<string, unknown> = {};
            for (const k of order) if (k in t) out[k] = (t as Record<string, unknown>)[k];
            // Through JSON text, as read from a log (`__proto__` becomes an own key, undefined goes).
            return JSON.parse(JSON.stringify(out)) as unknown;
          }),
      );
    const candidate = fc.record(
      {
        type: fc.constant("ToolsFetched"),
        v: fc.constantFrom(1, 1, 1, 1, 1, 2),
        at: mostly(fc.string()),
        extension: fc.oneof({ weight: 9, arbitrary: fc.string() }, { weight: 1, arbitrary: value }),
        startedAtVersion: fc.oneof(
          { weight: 9, arbitrary: fc.nat() },
          { weight: 1, arbitrary: fc.oneof(fc.integer({ min: -3, max: -1 }), fc.double(), value) },
        ),
        tools: fc.oneof(
          { weight: 9, arbitrary: fc.array(tool, { maxLength: 4 }) },
          { weight: 1, arbitrary: json },
        ),
        complete: mostly(fc.boolean()),
        reason: mostly(fc.string()),
        wireNames: mostly(
          fc.array(fc.record({ rawName: fc.string(), wireName: fc.string() }), { maxLength: 2 }),
        ),
        // Rarely: a key the schema drops, or one present with undefined (JS hosts, not JSON).
        extra: fc.oneof(
          { weight: 1, arbitrary: value },
          { weight: 20, arbitrary: fc.constant("drop") },
        ),
      },
      { requiredKeys: ["type", "v", "extension", "startedAtVersion", "tools"] },
    );
    let taken = 0;
    fc.assert(
      fc.property(candidate, (generated) => {
        const raw: Record<string, unknown> = { ...generated };
        if (raw.extra === "drop") delete raw.extra;
        const fast = decodeCommonEvent(raw);
        if (fast === undefined) return;
        taken++;
        const parsed = ToolledgerEventSchema.safeParse(raw);
        expect(parsed.success).toBe(true);
        expect(fast).toEqual(parsed.data);
        expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed.data));
      }),
      { numRuns: 2000 },
    );
    expect(taken).toBeGreaterThan(200);
  });
  it("property: the ToolCallStarted / ToolCallFinished fast path gives exactly the schema's result (C4)", () => {
    const odd = fc.constantFrom(
      undefined,
      null,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      -1,
      -0,
      "",
      0,
    );
    const json = fc.jsonValue({ maxDepth: 2 });
    const mostly = <T>(good: fc.Arbitrary<T>) =>
      fc.oneof({ weight: 12, arbitrary: good }, { weight: 1, arbitrary: fc.oneof(odd, json) });
    const nullable = mostly(fc.oneof(fc.string(), fc.constant(null)));
    const started = fc.record(
      {
        type: fc.constant("ToolCallStarted"),
        v: fc.constantFrom(1, 1, 1, 1, 2),
        at: mostly(fc.string()),
        callId: mostly(fc.string()),
        name: mostly(fc.string()),
        publicName: nullable,
        owner: nullable,
        rawName: nullable,
        arguments: fc.oneof(json, odd),
        extra: fc.oneof(
          { weight: 1, arbitrary: json },
          { weight: 12, arbitrary: fc.constant("drop") },
        ),
      },
      { requiredKeys: ["type", "v"] },
    );
    const finished = fc.record(
      {
        type: fc.constant("ToolCallFinished"),
        v: fc.constantFrom(1, 1, 1, 1, 2),
        at: mostly(fc.string()),
        callId: mostly(fc.string()),
        outcome: mostly(
          fc.constantFrom(
            "ok",
            "tool_error",
            "refused",
            "timeout",
            "cancelled",
            "unavailable",
            "OK",
          ),
        ),
        durationMs: mostly(fc.oneof(fc.double(), fc.nat(), fc.constant(-0))),
        reason: nullable,
        error: nullable,
        result: fc.oneof(json, odd),
        extra: fc.oneof(
          { weight: 1, arbitrary: json },
          { weight: 12, arbitrary: fc.constant("drop") },
        ),
      },
      { requiredKeys: ["type", "v"] },
    );
    // Keys in the schema's order (as the decider writes them) or shuffled (any other writer).
    const candidate = fc.oneof(started, finished).chain((event) =>
      fc
        .oneof(
          { weight: 3, arbitrary: fc.constant(Object.keys(event)) },
          {
            weight: 1,
            arbitrary: fc.shuffledSubarray(Object.keys(event), {
              minLength: Object.keys(event).length,
            }),
          },
        )
        .map((order) => {
          const raw: Record<string, unknown> = {};
          for (const k of order)
            if (!(k === "extra" && event.extra === "drop"))
              raw[k] = (event as Record<string, unknown>)[k];
          return raw;
        }),
    );
    let taken = 0;
    fc.assert(
      fc.property(candidate, (raw) => {
        const fast = decodeCommonEvent(raw);
        const parsed = ToolledgerEventSchema.safeParse(raw);
        if (fast === undefined) return;
        taken++;
        expect(parsed.success).toBe(true);
        expect(fast).toEqual(parsed.data);
        expect(Object.keys(fast)).toEqual(Object.keys(parsed.data!));
        expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed.data));
        expect(
          Object.is(
            (fast as { durationMs?: number }).durationMs,
            (parsed.data as { durationMs?: number }).durationMs,
          ),
        ).toBe(true);
      }),
      { numRuns: 3000 },
    );
    expect(taken).toBeGreaterThan(200);
  });

  it("C4: the call events as the decider writes them are decoded without a copy", () => {
    const at = new Date(0).toISOString();
    const started = {
      type: "ToolCallStarted",
      v: 1,
      at,
      callId: "c1",
      name: "a__t",
      publicName: "a__t",
      owner: "a",
      rawName: "t",
    };
    const finished = {
      type: "ToolCallFinished",
      v: 1,
      at,
      callId: "c1",
      outcome: "ok",
      durationMs: 0.5,
      reason: null,
      error: null,
      result: { content: [] },
    };
    for (const event of [started, finished]) {
      expect(ToolledgerEventSchema.parse(event)).toEqual(event);
      expect(decodeCommonEvent(event)).toBe(event);
    }
  });
});
