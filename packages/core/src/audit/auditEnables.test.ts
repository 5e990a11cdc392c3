import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ev } from "../../testing/events.js";
import { decodeEventOrThrow } from "../events/decodeEvent.js";
import type { ToolledgerEventInput } from "../events/events.js";
import { replay } from "../fold/replay.js";
import type { StoredEvent } from "../store/eventStore.js";
import { auditEnables } from "./auditEnables.js";

/** Stored events of one stream, positioned as a store would. */
function stored(events: ToolledgerEventInput[], streamId = "s"): StoredEvent[] {
  return events.map((e, i) => ({
    streamId,
    streamPosition: i + 1,
    globalPosition: i + 1,
    eventId: `e${i}`,
    event: decodeEventOrThrow(e),
    metadata: {},
    recordedAt: "2026-11-29T12:00:00.000Z",
  }));
}

describe("auditEnables (pure): pairing exactly as the reducer (D6–D8)", () => {
  it("D6: a repeated pending call id merges into one request; one response answers both records", () => {
    const audit = auditEnables(
      stored([ev.requested("c", ["a"]), ev.requested("c", ["b"]), ev.responded("c", true)]),
    );
    expect(
      audit.requests.map((r) => [r.names, r.outcome, r.stillEnabled, r.responded?.position]),
    ).toEqual([
      [["a"], "enabled", ["a"], 3],
      [["b"], "enabled", ["b"], 3],
    ]);
  });

  it("D6: a second response to an answered call id is a duplicate that ends a request reusing the id, enabling nothing", () => {
    const audit = auditEnables(
      stored([
        ev.requested("c", ["a"]),
        ev.responded("c", true),
        ev.requested("c", ["b"]),
        ev.responded("c", true),
      ]),
    );
    expect(
      audit.requests.map((r) => [r.callId, r.outcome, r.stillEnabled, r.ended?.by ?? null]),
    ).toEqual([
      ["c", "enabled", ["a"], null],
      ["c", "never_answered", [], "duplicate_response"],
    ]);
    expect(audit.orphanResponses.map((o) => [o.kind, o.responded.position])).toEqual([
      ["duplicate_response", 4],
    ]);
    expect(
      replay(
        stored([
          ev.requested("c", ["a"]),
          ev.responded("c", true),
          ev.requested("c", ["b"]),
          ev.responded("c", true),
        ]).map((e) => e.event),
      ).enabled,
    ).toEqual(["a"]);
  });

  it("D7: a Compacted event that does not carry a name or a pending request ends it; one it carries is recorded", () => {
    const audit = auditEnables(
      stored([
        ev.requested("c1", ["a", "b"]),
        ev.responded("c1", true),
        ev.requested("c2", ["x"]),
        ev.compacted(["a"], [{ callId: "c9", names: ["z"] }]),
        ev.responded("c9", true),
      ]),
    );
    expect(
      audit.requests.map((r) => [
        r.callId,
        r.outcome,
        r.stillEnabled,
        r.ended?.by ?? null,
        r.carriedByCompaction,
      ]),
    ).toEqual([
      ["c1", "enabled", ["a"], "Compacted", false],
      ["c2", "never_answered", [], "Compacted", false],
      ["c9", "enabled", ["z"], null, true],
    ]);
  });

  it("property: the names the audit says are still enabled are the replayed enabled set (no compactions); a subset with them", () => {
    const names = ["a", "b", "c"];
    const calls = ["c1", "c2", "c3"];
    const event: fc.Arbitrary<ToolledgerEventInput> = fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .tuple(fc.constantFrom(...calls), fc.subarray(names))
          .map(([c, n]) => ev.requested(c, n)),
      },
      {
        weight: 4,
        arbitrary: fc
          .tuple(fc.constantFrom(...calls), fc.boolean())
          .map(([c, ok]) => ev.responded(c, ok)),
      },
      { weight: 1, arbitrary: fc.constant(ev.cleared()) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.subarray(names), fc.subarray(calls), fc.subarray(calls))
          .map(([enabled, pending, answered]) =>
            ev.compacted(
              enabled,
              pending.map((callId) => ({ callId, names: ["a"] })),
              answered,
            ),
          ),
      },
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        const log = stored(events);
        const audit = auditEnables(log);
        const state = replay(log.map((e) => e.event));
        const still = new Set(audit.requests.flatMap((r) => r.stillEnabled));
        const compacts = events.some((e) => e.type === "Compacted");
        if (compacts) for (const n of still) expect(state.enabled).toContain(n);
        else expect([...still].sort()).toEqual([...state.enabled]);
        // Every request that is still pending in the reducer is never_answered and not ended.
        for (const p of state.pending) {
          const open = audit.requests.filter(
            (r) => r.callId === p.callId && r.ended === null && r.outcome === "never_answered",
          );
          expect(open.length).toBeGreaterThan(0);
        }
        if (!compacts) expect(audit.orphanResponses.length).toBeLessThanOrEqual(state.anomalyCount);
      }),
      { numRuns: 300 },
    );
  });
});
