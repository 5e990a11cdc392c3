import {
  type AppendResult,
  EventStoreError,
  type EventToAppend,
  type ExpectedVersion,
  InMemoryEventStore,
  type ToolledgerEvent,
} from "@toolledger/core";
import { afterEach, describe, expect, it } from "vitest";
import type { AdapterError } from "../adapterError.js";
import { type Conversation, openConversation } from "../conversation/conversation.js";
import { openHost, type ToolledgerHost } from "../host/toolledgerHost.js";
import { shipped } from "../testing/fixtures.js";

// C4 written behind, against a real server process: a store that goes away and comes back.
// The store is the in-memory one; `down` makes its appends fail as an unreachable database's
// do, `ackLost` stores a batch and then fails as if the answer were lost on the way.

class FlakyStore extends InMemoryEventStore {
  /** Appends to these streams fail (the conversation's; the registry's host is not under test). */
  readonly down = new Set<string>();
  /** Appends to a stream here are stored, then fail as if their answer were lost (once each). */
  readonly ackLost = new Set<string>();
  override async append(
    streamId: string,
    events: readonly EventToAppend[],
    expected?: ExpectedVersion,
  ): Promise<AppendResult> {
    if (this.down.has(streamId))
      throw new EventStoreError("STORE_UNAVAILABLE", "db.example:5432: connection refused");
    const result = await super.append(streamId, events, expected);
    if (result.ok && this.ackLost.delete(streamId))
      throw new EventStoreError("STORE_UNAVAILABLE", "db.example:5432: connection reset");
    return result;
  }
}

const behind = { recordFinishAfterAnswer: true } as const;
/** L1: these tests are of the relaxed mode, where a call's start is written behind too. */
const relaxed = { callDurability: "relaxed" } as const;

function callEvents(events: ToolledgerEvent[]): string[] {
  return events.flatMap((e) =>
    e.type === "ToolCallStarted" || e.type === "ToolCallFinished"
      ? [`${e.type === "ToolCallStarted" ? "start" : "finish"} ${e.callId}`]
      : [],
  );
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("C4 call events written behind (relaxed, L1) while the store goes away", () => {
  let host: ToolledgerHost | undefined;
  const open = async (store: FlakyStore, options: Parameters<typeof openConversation>[1] = {}) => {
    host = await openHost({ store, requestTimeoutMs: 5_000 });
    await host.addExtensions([shipped("calc", "calculator")]);
    const c = await openConversation(host, { followIntervalMs: 0, ...relaxed, ...options });
    const errors: AdapterError[] = [];
    const notices: string[] = [];
    c.errors$.subscribe((e) => errors.push(e));
    c.notices$.subscribe((n) => notices.push(n));
    return { c, errors, notices };
  };
  const calc = (c: Conversation, callId: string) =>
    c.callTool("calc__calculate", { expression: "6 * 7" }, { ...behind, callId });
  const stored = async (store: FlakyStore, c: Conversation) =>
    callEvents((await store.readStream(c.id)).map((e) => e.event));

  afterEach(async () => {
    await host?.close();
    host = undefined;
  });

  it("a call is answered while the store is away; its events are kept, said so, and stored in order when it is back", async () => {
    const store = new FlakyStore();
    const { c, errors, notices } = await open(store);
    expect((await calc(c, "k1")).ok).toBe(true);
    await c.flush();
    store.down.add(c.id);
    const answered = await calc(c, "k2");
    expect(answered.ok).toBe(true);
    await calc(c, "k3");
    // k3's finish is decided once its answer is out, after this turn.
    await new Promise((r) => setImmediate(r));
    await until(() => errors.length > 0, "the held report");
    expect(errors[0]!.message).toMatch(
      /conversation conv-.*: the event store refused \d+ call event\(s\); they are kept in memory .*connection refused/,
    );
    expect(c.pendingEvents).toBe(4);
    store.down.delete(c.id);
    await until(() => notices.length > 0, "the stored report");
    expect(notices[0]).toMatch(
      /the event store is back; 4 held call event\(s\) stored after \d+ ms/,
    );
    expect(await stored(store, c)).toEqual([
      "start k1",
      "finish k1",
      "start k2",
      "finish k2",
      "start k3",
      "finish k3",
    ]);
    expect(c.state.calls).toMatchObject({ started: 3, finished: 3, inFlight: [] });
    expect(errors).toHaveLength(1);
    await c.close("done");
  });

  it("a group stored whose answer was lost is not stored twice: the retry's ids find it", async () => {
    const store = new FlakyStore();
    const { c, errors, notices } = await open(store);
    store.ackLost.add(c.id);
    await calc(c, "a1");
    await until(() => notices.length > 0, "the stored report");
    expect(errors).toHaveLength(1);
    expect(await stored(store, c)).toEqual(["start a1", "finish a1"]);
    expect(c.state.calls).toMatchObject({ started: 1, finished: 1 });
    await c.close("done");
  });

  it("with the bound full, a new call is refused before it reaches the server; the calls in flight still finish", async () => {
    const store = new FlakyStore();
    const { c, errors } = await open(store, { writeBehind: { maxHeld: 4 } });
    store.down.add(c.id);
    await calc(c, "b1");
    await calc(c, "b2");
    await until(() => errors.length > 0, "the held report");
    const refused = calc(c, "b3");
    await expect(refused).rejects.toMatchObject({
      code: "APPEND_REJECTED",
      message: expect.stringMatching(/holds 4 call event\(s\) the event store has not taken/),
    });
    expect(c.state.calls.started).toBe(0);
    store.down.delete(c.id);
    await c.flush();
    expect(await stored(store, c)).toEqual(["start b1", "finish b1", "start b2", "finish b2"]);
    expect((await calc(c, "b4")).ok).toBe(true);
    await c.close("done");
    expect(await stored(store, c)).toEqual([
      "start b1",
      "finish b1",
      "start b2",
      "finish b2",
      "start b4",
      "finish b4",
    ]);
  });

  it("an enable_tools call whose enable the store refuses still gets its finish, held and stored with its start", async () => {
    const store = new FlakyStore();
    const { c } = await open(store, { deferral: { mode: "lookup" } });
    store.down.add(c.id);
    await expect(
      c.callTool("enable_tools", { names: ["calc__calculate"] }, { ...behind, callId: "e1" }),
    ).rejects.toThrow(/connection refused/);
    store.down.delete(c.id);
    await c.flush();
    const events = (await store.readStream(c.id)).map((e) => e.event);
    expect(callEvents(events)).toEqual(["start e1", "finish e1"]);
    expect(events.find((e) => e.type === "ToolCallFinished")).toMatchObject({
      outcome: "unavailable",
      error: expect.stringContaining("connection refused"),
    });
    expect(events.some((e) => e.type === "EnableToolsRequested")).toBe(false);
    await c.close("done");
  });

  it("a conversation closed while a call runs waits for its outcome and records it before ConversationClosed", async () => {
    const store = new FlakyStore();
    host = await openHost({ store, requestTimeoutMs: 5_000 });
    await host.addExtensions([shipped("faulty", "faulty")]);
    const c = await openConversation(host, { followIntervalMs: 0, ...relaxed });
    const call = c.callTool("faulty__slow", { ms: 300 }, { ...behind, callId: "s1" });
    await until(() => c.pendingEvents > 0, "the call's start");
    await c.close("client disconnected");
    expect((await call).ok).toBe(true);
    const types = (await store.readStream(c.id)).map((e) => e.event.type).slice(-3);
    expect(types).toEqual(["ToolCallStarted", "ToolCallFinished", "ConversationClosed"]);
  });

  it("a call still running when the wait is over is reported: its outcome cannot be recorded", async () => {
    const store = new FlakyStore();
    host = await openHost({ store, requestTimeoutMs: 5_000 });
    await host.addExtensions([shipped("faulty", "faulty")]);
    const c = await openConversation(host, {
      followIntervalMs: 0,
      ...relaxed,
      writeBehind: { closeWaitMs: 200 },
    });
    const errors: AdapterError[] = [];
    c.errors$.subscribe((e) => errors.push(e));
    const call = c.callTool("faulty__slow", { ms: 2_000 }, { ...behind, callId: "s2" });
    await until(() => c.pendingEvents > 0, "the call's start");
    await c.close("client disconnected");
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(
        /closed with 1 call\(s\) still running after 200 ms \(s2\): their outcomes are not recorded/,
      ),
    ]);
    await call;
  });

  it("events still held when the conversation closes are reported LOST, call by call, never dropped silently", async () => {
    const store = new FlakyStore();
    const { c, errors } = await open(store, { writeBehind: { closeWaitMs: 300 } });
    store.down.add(c.id);
    await calc(c, "z1");
    await expect(c.close("client disconnected")).rejects.toThrow(/connection refused/);
    const lost = errors.find((e) => e.message.includes("LOST"));
    expect(lost?.message).toMatch(
      /LOST 2 call event\(s\) the event store never took: call z1 \(started calc__calculate, finished ok\)/,
    );
    store.down.delete(c.id);
    expect(await stored(store, c)).toEqual([]);
  });

  it("with a store slow to commit, calls decided during a commit wait for their own window: groups, not back-to-back commits (C4)", async () => {
    const store = new FlakyStore();
    const { c } = await open(store);
    // Every append to the conversation takes 30 ms, as a database far away or a slow disk does.
    let appends = 0;
    const append = store.append.bind(store);
    store.append = async (streamId, events, expected) => {
      if (streamId === c.id) {
        appends++;
        await new Promise((r) => setTimeout(r, 30));
      }
      return append(streamId, events, expected);
    };
    let n = 0;
    const end = Date.now() + 400;
    while (Date.now() < end) await calc(c, `g${n++}`);
    await c.flush();
    const calls = await stored(store, c);
    expect(calls).toHaveLength(2 * n);
    expect(calls.slice(0, 4)).toEqual(["start g0", "finish g0", "start g1", "finish g1"]);
    // Each commit took 30 ms: committing whatever arrived meanwhile at once would be one
    // commit after another (13 or 14 in 400 ms). The window (10 ms until the first commit's
    // time is known, then 20 × 30 ms) makes the first group, the ones whose 10 ms windows
    // ended while it was committed, one 500 ms group, and the flush's.
    expect(n).toBeGreaterThan(20);
    expect(appends).toBeLessThanOrEqual(7);
    await c.close("done");
  });
});
