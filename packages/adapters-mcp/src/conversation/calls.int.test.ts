import {
  InMemoryEventStore,
  type ToolCallFinished,
  type ToolCallStarted,
  toolCallStats,
} from "@toolledger/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shipped } from "../testing/fixtures.js";
import { openConversation } from "./conversation.js";
import {
  openStandaloneConversation,
  type StandaloneConversation,
} from "./standaloneConversation.js";

// C4 against real server processes: every outcome class is recorded, refusals with their reason.

const SECRET = "sekret-value-1234567";

describe("C4 every tools/call is recorded with its outcome", () => {
  const store = new InMemoryEventStore();
  let session: StandaloneConversation;
  beforeAll(async () => {
    session = await openStandaloneConversation({
      store,
      streamId: "calls",
      requestTimeoutMs: 5_000,
      conversation: { recordPayloads: { maxChars: 200 } },
    });
    await session.addExtensions([
      shipped("faulty", "faulty", [], { env: { API_TOKEN: SECRET } }),
      shipped("calc", "calculator"),
    ]);
  });
  afterAll(async () => {
    await session?.close();
  });

  const finished = async () =>
    (await store.readStream("calls"))
      .map((e) => e.event)
      .filter((e): e is ToolCallFinished => e.type === "ToolCallFinished");
  const started = async () =>
    (await store.readStream("calls"))
      .map((e) => e.event)
      .filter((e): e is ToolCallStarted => e.type === "ToolCallStarted");
  const last = async () => (await finished()).at(-1)!;

  it("ok, with the owner and raw name on the start and the duration on the finish", async () => {
    await session.callTool("faulty__ok", {}, { callId: "c-ok" });
    expect((await started()).at(-1)).toMatchObject({
      callId: "c-ok",
      name: "faulty__ok",
      publicName: "faulty__ok",
      owner: "faulty",
      rawName: "ok",
    });
    const f = await last();
    expect(f).toMatchObject({ callId: "c-ok", outcome: "ok", reason: null, error: null });
    expect(f.durationMs).toBeGreaterThan(0);
  });

  it("tool_error: the server answered isError; its text is kept", async () => {
    const r = await session.callTool("calc__calculate", { expression: "2 +* 3" });
    expect(r.ok && r.result.isError).toBe(true);
    expect(await last()).toMatchObject({ outcome: "tool_error" });
    expect((await last()).error).not.toBeNull();
  });

  it("refused: an unknown name never reaches a server; the reason is recorded", async () => {
    const r = await session.callTool("faulty__okay", {});
    expect(r).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOOL" } });
    expect(await last()).toMatchObject({
      outcome: "refused",
      reason: "UNKNOWN_TOOL",
      durationMs: 0,
    });
    expect((await started()).at(-1)).toMatchObject({ name: "faulty__okay", owner: null });
  });

  it("timeout", async () => {
    await expect(
      session.callTool("faulty__slow", { ms: 5_000 }, { timeoutMs: 150 }),
    ).rejects.toMatchObject({ code: "REQUEST_TIMEOUT" });
    expect(await last()).toMatchObject({ outcome: "timeout" });
  });

  it("cancelled", async () => {
    const abort = new AbortController();
    const call = session.callTool("faulty__slow", { ms: 5_000 }, { signal: abort.signal });
    setTimeout(() => abort.abort(), 100);
    await expect(call).rejects.toMatchObject({ code: "CANCELLED" });
    expect(await last()).toMatchObject({ outcome: "cancelled" });
  });

  it("payloads (opted in): credential-looking keys masked, config secrets redacted, cut to the cap", async () => {
    await session.callTool("calc__calculate", {
      expression: "1 + 1",
      password: "hunter2",
      note: `the token is ${SECRET}`,
    });
    const s = (await started()).at(-1)!;
    expect(s.arguments).toEqual({
      expression: "1 + 1",
      password: "[masked]",
      note: "the token is [redacted]",
    });
    const f = await last();
    expect(JSON.stringify(f.result)).toContain("1 + 1 = 2");
    expect(JSON.stringify(await store.readAll({ limit: 10_000 }))).not.toContain(SECRET);
    await session.callTool("calc__calculate", { expression: "1 + 1", pad: "x".repeat(500) });
    expect((await started()).at(-1)!.arguments).toMatchObject({ truncated: true });
  });

  it("unavailable: the server died during the call", async () => {
    await expect(session.callTool("faulty__crash", {})).rejects.toMatchObject({
      code: expect.stringMatching(/CONNECTION_CLOSED|PROTOCOL_ERROR/),
    });
    expect(await last()).toMatchObject({ outcome: "unavailable" });
  });

  it("keeps a bounded summary in state: counts per outcome and per tool", () => {
    const calls = session.state.calls;
    expect(calls.outcomes).toMatchObject({
      ok: 3,
      tool_error: 1,
      refused: 1,
      timeout: 1,
      cancelled: 1,
      unavailable: 1,
    });
    expect(calls.inFlight).toEqual([]);
    expect(calls.recent.length).toBe(calls.finished);
    expect(toolCallStats(session.state, "faulty__slow")).toMatchObject({
      total: 2,
      outcomes: { timeout: 1, cancelled: 1 },
      lastOutcome: "cancelled",
    });
    expect(toolCallStats(session.state, "faulty__okay")).toBeUndefined();
  });
});

describe("C4 the gateway's calls written behind (relaxed, L1): answered first, stored in the next group commit", () => {
  const store = new InMemoryEventStore();
  let session: StandaloneConversation;
  beforeAll(async () => {
    session = await openStandaloneConversation({
      store,
      streamId: "answer-first",
      requestTimeoutMs: 5_000,
      // A window long enough that a loaded machine cannot commit the group before the asserts.
      conversation: { callDurability: "relaxed", writeBehind: { commitWindowMs: 1_500 } },
    });
    await session.addExtensions([shipped("calc", "calculator")]);
  });
  afterAll(async () => {
    await session?.close();
  });
  const types = async (stream: string) =>
    (await store.readStream(stream)).map(
      (e) => `${e.event.type}${"callId" in e.event ? ` ${e.event.callId}` : ""}`,
    );

  it("decided before the call goes upstream, stored in order with the finish within the commit window", async () => {
    const late = { recordFinishAfterAnswer: true } as const;
    const first = await session.callTool(
      "calc__calculate",
      { expression: "1 + 1" },
      { ...late, callId: "a1" },
    );
    expect(first.ok).toBe(true);
    // The answer is here; its finish is decided once the answer is out (after this turn), and
    // then held for the group commit, not yet stored (the gateway's client is answered first).
    await new Promise((resolve) => setImmediate(resolve));
    expect(await types("answer-first")).not.toContain("ToolCallFinished a1");
    expect(session.conversation.pendingEvents).toBeGreaterThan(0);
    // A call made at once is recorded after it: the stream keeps each call's start and finish in order.
    await session.callTool("calc__calculate", { expression: "2 + 2" }, { ...late, callId: "a2" });
    // a2's finish is decided once its answer is out, after this turn (until then it is no
    // pending event: a2's start may be stored already, when its call outlasted the window).
    await new Promise((resolve) => setImmediate(resolve));
    expect(session.conversation.pendingEvents).toBeGreaterThan(0);
    // No flush asked for: the group commit comes within the window.
    const deadline = Date.now() + 5_000;
    while (session.conversation.pendingEvents > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await types("answer-first")).filter((t) => t.includes(" a"))).toEqual([
      "ToolCallStarted a1",
      "ToolCallFinished a1",
      "ToolCallStarted a2",
      "ToolCallFinished a2",
    ]);
    expect(session.state.calls).toMatchObject({ started: 2, finished: 2, inFlight: [] });
  });

  it("a conversation closed right after the answer records the finish before it closes", async () => {
    const c = await openConversation(session.host, {
      id: "answer-then-close",
      followIntervalMs: 0,
      callDurability: "relaxed",
    });
    const r = await c.callTool(
      "calc__calculate",
      { expression: "3 * 3" },
      {
        recordFinishAfterAnswer: true,
        callId: "b1",
      },
    );
    expect(r.ok).toBe(true);
    await c.close("client disconnected");
    expect((await types("answer-then-close")).slice(-3)).toEqual([
      "ToolCallStarted b1",
      "ToolCallFinished b1",
      "ConversationClosed",
    ]);
  });
});
