import { describe, expect, it } from "vitest";
import type { ToolledgerEvent } from "../events/events.js";
import type { StoredEvent } from "../store/eventStore.js";
import { auditCalls, formatCallAuditCsv } from "./auditCalls.js";

const stored = (streamId: string, events: ToolledgerEvent[]): StoredEvent[] =>
  events.map((event, i) => ({
    streamId,
    streamPosition: i + 1,
    globalPosition: i + 1,
    eventId: `${streamId}-${i}`,
    event,
    metadata: {},
    recordedAt: `2026-11-30T10:00:0${i}.000Z`,
  }));

describe("C4 auditCalls", () => {
  const log = stored("conv-1", [
    {
      type: "ConversationStarted",
      v: 1,
      registryStream: "h",
      client: { name: "cli", version: "2" },
      protocolVersion: null,
      transport: null,
      hostname: null,
    },
    {
      type: "ToolCallStarted",
      v: 1,
      callId: "a",
      name: "x__y",
      publicName: "x__y",
      owner: "x",
      rawName: "y",
    },
    {
      type: "ToolCallStarted",
      v: 1,
      callId: "b",
      name: "nope",
      publicName: null,
      owner: null,
      rawName: null,
    },
    {
      type: "ToolCallFinished",
      v: 1,
      callId: "b",
      outcome: "refused",
      durationMs: 0,
      reason: "UNKNOWN_TOOL",
      error: 'no tool "nope", close: x__y',
    },
    {
      type: "ToolCallFinished",
      v: 1,
      callId: "a",
      outcome: "ok",
      durationMs: 12.5,
      reason: null,
      error: null,
    },
    {
      type: "ToolCallStarted",
      v: 1,
      callId: "c",
      name: "x__y",
      publicName: "x__y",
      owner: "x",
      rawName: "y",
    },
  ]);

  it("pairs starts and finishes by call id, in start order, with the client; an unfinished call has no outcome", () => {
    const calls = auditCalls(log);
    expect(calls.map((c) => [c.callId, c.outcome, c.reason, c.client])).toEqual([
      ["a", "ok", null, "cli 2"],
      ["b", "refused", "UNKNOWN_TOOL", "cli 2"],
      ["c", null, null, "cli 2"],
    ]);
    expect(calls[0]!.finished?.position).toBe(5);
  });

  it("filters by tool, outcome and time", () => {
    expect(auditCalls(log, { toolName: "x__y" }).map((c) => c.callId)).toEqual(["a", "c"]);
    expect(auditCalls(log, { toolName: "nope" }).map((c) => c.callId)).toEqual(["b"]);
    expect(auditCalls(log, { outcome: "refused" }).map((c) => c.callId)).toEqual(["b"]);
    expect(
      auditCalls(log, { from: new Date("2026-11-30T10:00:02.000Z") }).map((c) => c.callId),
    ).toEqual(["b", "c"]);
    expect(auditCalls(log, { sessionId: "other" })).toEqual([]);
  });

  it("writes RFC 4180 CSV: quotes cells with commas and quotes", () => {
    const csv = formatCallAuditCsv(auditCalls(log, { outcome: "refused" }));
    expect(csv.split("\r\n")[1]).toBe(
      'conv-1,b,cli 2,nope,,,refused,UNKNOWN_TOOL,0,2026-11-30T10:00:02.000Z,2026-11-30T10:00:03.000Z,"no tool ""nope"", close: x__y",',
    );
    // D9/R13: the registry mark is the last column, empty until a reader that folds the registry sets it.
    const marked = auditCalls(log, { outcome: "refused" }).map((r) => ({
      ...r,
      registry: "unknown" as const,
    }));
    expect(formatCallAuditCsv(marked).split("\r\n")[0]!.split(",").at(-1)).toBe("registry");
    expect(formatCallAuditCsv(marked).split("\r\n")[1]).toMatch(/,unknown$/);
  });
});
