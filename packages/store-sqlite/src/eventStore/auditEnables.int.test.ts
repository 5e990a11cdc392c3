import { formatEnableAuditCsv } from "@toolledger/core";
import { ev, withIds } from "@toolledger/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../testing/tempDir.test-helpers.js";
import { SqliteEventStore } from "./sqliteEventStore.js";

const T = (minute: number) => `2026-11-29T10:${String(minute).padStart(2, "0")}:00.000Z`;
const RECORDED = "2026-11-29T12:00:00.000Z";

describe("the enable audit of a stored session (D6–D8)", () => {
  let dir: ReturnType<typeof tempDir>;
  let store: SqliteEventStore;
  beforeEach(async () => {
    dir = tempDir();
    store = SqliteEventStore.open(dir.file("audit.db"), { now: () => new Date(RECORDED) });
    const unknown = {
      code: "UNKNOWN_TOOL",
      message: "unknown tool nope__x",
      invalid: [{ name: "nope__x", reason: "unknown tool", suggestions: [] }],
    };
    await store.append(
      "s1",
      withIds([
        ev.added("github"), // 1
        ev.fetched("github", 1, ["search", "create_issue"]), // 2
        ev.requested("c1", ["github__search"], T(1)), // 3
        ev.responded("c1", true, T(2)), // 4  enabled
        ev.requested("c2", ["nope__x"], T(3)), // 5
        ev.responded("c2", false, T(4), unknown), // 6  failed
        ev.requested("c3", ["github__create_issue"], T(5)), // 7  never answered (cleared while pending)
        ev.cleared(T(6)), // 8  clears c1's name and c3
        ev.responded("c3", true, T(7)), // 9  orphan: after the clear
        ev.requested("c4", ["github__search", "github__create_issue"], T(8)), // 10
        ev.responded("c4", true, T(9)), // 11 enabled, still at the end
        ev.requested("c5", ["github__search"], T(10)), // 12 never answered, still pending
      ]),
    );
    await store.append(
      "s2",
      withIds([ev.requested("c1", ["github__search"], T(30)), ev.responded("c1", true, T(31))]),
    );
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  const point = (position: number, globalPosition: number, minute: number) => ({
    position,
    globalPosition,
    recordedAt: RECORDED,
    at: T(minute),
  });

  it("matches a hand-written expectation: enabled, failed, unanswered, cleared, orphaned", async () => {
    const audit = await store.auditEnables({ sessionId: "s1" });
    const base = {
      sessionId: "s1",
      carriedByCompaction: false,
      error: null,
      stillEnabled: [],
      ended: null,
      responded: null,
    };
    expect(audit.requests).toEqual([
      {
        ...base,
        callId: "c1",
        names: ["github__search"],
        requested: point(3, 3, 1),
        responded: point(4, 4, 2),
        outcome: "enabled",
        ended: { by: "Cleared", ...point(8, 8, 6) },
      },
      {
        ...base,
        callId: "c2",
        names: ["nope__x"],
        requested: point(5, 5, 3),
        responded: point(6, 6, 4),
        outcome: "failed",
        error: {
          code: "UNKNOWN_TOOL",
          message: "unknown tool nope__x",
          invalid: [{ name: "nope__x", reason: "unknown tool", suggestions: [] }],
        },
      },
      {
        ...base,
        callId: "c3",
        names: ["github__create_issue"],
        requested: point(7, 7, 5),
        outcome: "never_answered",
        ended: { by: "Cleared", ...point(8, 8, 6) },
      },
      {
        ...base,
        callId: "c4",
        names: ["github__search", "github__create_issue"],
        requested: point(10, 10, 8),
        responded: point(11, 11, 9),
        outcome: "enabled",
        stillEnabled: ["github__search", "github__create_issue"],
      },
      {
        ...base,
        callId: "c5",
        names: ["github__search"],
        requested: point(12, 12, 10),
        outcome: "never_answered",
      },
    ]);
    expect(audit.orphanResponses).toEqual([
      {
        sessionId: "s1",
        callId: "c3",
        kind: "response_without_request",
        ok: true,
        responded: point(9, 9, 7),
      },
    ]);
    // The audit's still-enabled names are exactly the replayed enabled set.
    const state = (await store.loadState("s1")).state;
    expect([...state.enabled].sort()).toEqual(["github__create_issue", "github__search"]);
  });

  it("filters by session, tool name and time range (on the request's time)", async () => {
    const all = await store.auditEnables();
    expect(all.requests.map((r) => `${r.sessionId}/${r.callId}`)).toEqual([
      "s1/c1",
      "s1/c2",
      "s1/c3",
      "s1/c4",
      "s1/c5",
      "s2/c1",
    ]);
    const byTool = await store.auditEnables({ toolName: "github__create_issue" });
    expect(byTool.requests.map((r) => r.callId)).toEqual(["c3", "c4"]);
    expect(byTool.orphanResponses).toEqual([]);
    const byTime = await store.auditEnables({ from: T(5), to: new Date(T(10)) });
    expect(byTime.requests.map((r) => r.callId)).toEqual(["c3", "c4"]);
    expect(byTime.orphanResponses.map((o) => o.callId)).toEqual(["c3"]);
    expect((await store.auditEnables({ sessionId: "s2" })).requests).toHaveLength(1);
    await expect(store.auditEnables({ from: "yesterday-ish" })).rejects.toThrow(
      /`from`: "yesterday-ish" is not a valid date/,
    );
  });

  it("formats as CSV: a header, one row per request, quoting where RFC 4180 needs it", async () => {
    const audit = await store.auditEnables({ sessionId: "s1" });
    const csv = formatEnableAuditCsv(audit);
    const rows = csv.split("\r\n");
    expect(rows[0]).toBe(
      "session_id,call_id,names,outcome,error_code,error_message,requested_position,requested_global_position,requested_at,requested_recorded_at,carried_by_compaction,responded_position,responded_at,responded_recorded_at,still_enabled,ended_by,ended_position,ended_at",
    );
    expect(rows[1]).toBe(
      `s1,c1,github__search,enabled,,,3,3,${T(1)},${RECORDED},false,4,${T(2)},${RECORDED},,Cleared,8,${T(6)}`,
    );
    expect(rows[4]).toBe(
      `s1,c4,github__search github__create_issue,enabled,,,10,10,${T(8)},${RECORDED},false,11,${T(9)},${RECORDED},github__search github__create_issue,,,`,
    );
    expect(rows).toHaveLength(7);
    expect(rows[6]).toBe("");
    const quoted = formatEnableAuditCsv({
      requests: [
        {
          ...audit.requests[1]!,
          error: { code: "X", message: 'bad "name", twice\nsee', invalid: [] },
        },
      ],
    });
    expect(quoted.split("\r\n")[1]).toContain(',X,"bad ""name"", twice\nsee",');
  });
});
