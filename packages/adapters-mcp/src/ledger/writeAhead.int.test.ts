import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AdapterError } from "../adapterError.js";
import { type Conversation, openConversation } from "../conversation/conversation.js";
import { openHost, type ToolledgerHost } from "../host/toolledgerHost.js";
import { d9Violations, judgeCalls } from "../testing/d9Judgement.js";
import { shipped } from "../testing/fixtures.js";
import { FlakyStore } from "../testing/flakyStore.js";
import { newEventId } from "./newEventId.js";

// L1 (write-ahead, the default) and L2 (one order), against real server processes: a call's
// start is stored before the call goes upstream, calls share commits without a window, and an
// append from another writer between a decision and its record makes the decision again.

const gateway = { recordFinishAfterAnswer: true } as const;

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "toolledger-ahead-"));
}

function callTypes(types: string[]): boolean {
  return types.includes("ToolCallStarted");
}

describe("L1 a call's start is stored before the call goes upstream (write-ahead)", () => {
  let host: ToolledgerHost | undefined;
  afterEach(async () => {
    await host?.close();
    host = undefined;
  });
  const open = async (store: FlakyStore, witnessFile: string, options = {}) => {
    host = await openHost({ store, requestTimeoutMs: 5_000 });
    await host.addExtensions([
      shipped("calc", "calculator"),
      shipped("w", "witness", [witnessFile]),
    ]);
    const c = await openConversation(host, { followIntervalMs: 0, ...options });
    const errors: AdapterError[] = [];
    c.errors$.subscribe((e) => errors.push(e));
    return { c, errors };
  };
  const witnessed = (file: string) =>
    readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l !== "");
  const stream = async (store: FlakyStore, c: Conversation) =>
    (await store.readStream(c.id)).map(
      (e) => `${e.event.type}${"callId" in e.event ? ` ${e.event.callId}` : ""}`,
    );

  it("when the call reaches its server, its ToolCallStarted is already in the store", async () => {
    const store = new FlakyStore();
    const file = join(tempDir(), "witness");
    writeFileSync(file, "");
    const { c } = await open(store, file);
    let storedAtStart: string[] = [];
    const r = await c.callTool(
      "w__witness",
      { id: "a1" },
      {
        ...gateway,
        callId: "a1",
        // Told just before the request goes to the server.
        onStart: async () => {
          storedAtStart = await stream(store, c);
        },
      },
    );
    expect(r.ok).toBe(true);
    expect(storedAtStart).toContain("ToolCallStarted a1");
    expect(storedAtStart).not.toContain("ToolCallFinished a1");
    expect(witnessed(file)).toEqual(["a1"]);
    await c.close("done");
  });

  it("calls decided together share one commit, the first at once; calls decided during a commit share the next", async () => {
    const store = new FlakyStore();
    const file = join(tempDir(), "witness");
    writeFileSync(file, "");
    const { c } = await open(store, file);
    // Every append to the conversation takes 30 ms, as a database far away does.
    let committing: (() => void) | null = null;
    store.before = async (streamId) => {
      if (streamId !== c.id) return;
      committing?.();
      await new Promise((r) => setTimeout(r, 30));
    };
    const first = Array.from({ length: 5 }, (_, i) =>
      c.callTool("w__witness", { id: `x${i}` }, { ...gateway, callId: `x${i}` }),
    );
    // The first commit is under way: five more calls, decided while it runs.
    await new Promise<void>((resolve) => {
      committing = resolve;
    });
    committing = null;
    const second = Array.from({ length: 5 }, (_, i) =>
      c.callTool("w__witness", { id: `y${i}` }, { ...gateway, callId: `y${i}` }),
    );
    for (const r of await Promise.all([...first, ...second])) expect(r.ok).toBe(true);
    await c.flush();
    const starts = store.appends
      .filter((a) => a.streamId === c.id && callTypes(a.types))
      .map((a) => a.types.filter((t) => t === "ToolCallStarted").length);
    // Five starts in the first commit, five in the next; finishes ride along or follow.
    expect(starts.slice(0, 2)).toEqual([5, 5]);
    expect(witnessed(file).sort()).toEqual([
      "x0",
      "x1",
      "x2",
      "x3",
      "x4",
      "y0",
      "y1",
      "y2",
      "y3",
      "y4",
    ]);
    await c.close("done");
  });

  it("L2: a clear appended by another writer between a call's decision and its record: decided again, refused (D9), never upstream; the audit agrees", async () => {
    const store = new FlakyStore();
    const file = join(tempDir(), "witness");
    writeFileSync(file, "");
    const { c } = await open(store, file, { deferral: { mode: "lookup" } });
    const enabled = await c.enableTools("e1", ["w__witness"]);
    expect(enabled.ok).toBe(true);
    // Another process's `toolledger clear` lands right before the call's group is appended.
    let cleared = false;
    store.before = async (streamId, events) => {
      if (streamId !== c.id || cleared || !events.some((e) => e.event.type === "ToolCallStarted"))
        return;
      cleared = true;
      const version = await store.streamVersion(c.id);
      const r = await store.append(
        c.id,
        [{ eventId: newEventId(), event: { type: "Cleared", v: 1, at: new Date().toISOString() } }],
        version,
      );
      expect(r.ok).toBe(true);
    };
    const r = await c.callTool("w__witness", { id: "late" }, { ...gateway, callId: "c1" });
    expect(r).toMatchObject({ ok: false, error: { code: "TOOL_NOT_ENABLED" } });
    expect(witnessed(file)).toEqual([]);
    expect((await stream(store, c)).slice(-3)).toEqual([
      "Cleared",
      "ToolCallStarted c1",
      "ToolCallFinished c1",
    ]);
    // Enabled again, the next call runs; the audit of the stored order flags nothing.
    expect((await c.enableTools("e2", ["w__witness"])).ok).toBe(true);
    expect((await c.callTool("w__witness", { id: "ok" }, { ...gateway, callId: "c2" })).ok).toBe(
      true,
    );
    await c.flush();
    const judged = await judgeCalls(store, c.id);
    expect(judged.map((j) => [j.callId, j.deferred, j.outcome])).toEqual([
      ["c1", true, "refused"],
      ["c2", false, "ok"],
    ]);
    expect(d9Violations(judged)).toEqual([]);
    await c.close("done");
  });

  it("L2: a call decided while another's commit finds a clear is decided again too, not stored behind the clear as allowed", async () => {
    const store = new FlakyStore();
    const file = join(tempDir(), "witness");
    writeFileSync(file, "");
    const { c } = await open(store, file, { deferral: { mode: "lookup" } });
    expect((await c.enableTools("e1", ["w__witness"])).ok).toBe(true);
    let second: Promise<unknown> | null = null;
    let cleared = false;
    store.before = async (streamId, events) => {
      if (streamId !== c.id || cleared || !events.some((e) => e.event.type === "ToolCallStarted"))
        return;
      cleared = true;
      // While the first call's commit is on its way, a second call is decided (against the
      // state before the clear), then another process's clear lands first.
      second = c.callTool("w__witness", { id: "b" }, { ...gateway, callId: "b" });
      await new Promise((r) => setTimeout(r, 30));
      const version = await store.streamVersion(c.id);
      await store.append(
        c.id,
        [{ eventId: newEventId(), event: { type: "Cleared", v: 1, at: new Date().toISOString() } }],
        version,
      );
    };
    const first = await c.callTool("w__witness", { id: "a" }, { ...gateway, callId: "a" });
    expect(first).toMatchObject({ ok: false, error: { code: "TOOL_NOT_ENABLED" } });
    expect(await second).toMatchObject({ ok: false, error: { code: "TOOL_NOT_ENABLED" } });
    expect(witnessed(file)).toEqual([]);
    await c.flush();
    expect(d9Violations(await judgeCalls(store, c.id))).toEqual([]);
    await c.close("done");
  });

  it("a call waits while the store refuses its start, and is made once the store takes it", async () => {
    const store = new FlakyStore();
    const file = join(tempDir(), "witness");
    writeFileSync(file, "");
    const { c } = await open(store, file);
    store.down.add(c.id);
    const call = c.callTool("w__witness", { id: "held" }, { ...gateway, callId: "h1" });
    // Retried with backoff: not made while the store refuses.
    await new Promise((r) => setTimeout(r, 300));
    expect(witnessed(file)).toEqual([]);
    store.down.delete(c.id);
    expect((await call).ok).toBe(true);
    expect(witnessed(file)).toEqual(["held"]);
    await c.flush();
    expect(await stream(store, c)).toEqual(
      expect.arrayContaining(["ToolCallStarted h1", "ToolCallFinished h1"]),
    );
    await c.close("done");
  });

  it("a call whose start the store does not take in time is refused, never made; the log says so once the store is back", async () => {
    const store = new FlakyStore();
    const file = join(tempDir(), "witness");
    writeFileSync(file, "");
    const { c } = await open(store, file, { writeBehind: { aheadWaitMs: 300 } });
    store.down.add(c.id);
    await expect(
      c.callTool("w__witness", { id: "never" }, { ...gateway, callId: "n1" }),
    ).rejects.toMatchObject({ code: "APPEND_REJECTED" });
    expect(witnessed(file)).toEqual([]);
    store.down.delete(c.id);
    await c.flush();
    const events = (await store.readStream(c.id)).map((e) => e.event);
    expect(events.filter((e) => "callId" in e && e.callId === "n1")).toEqual([
      expect.objectContaining({ type: "ToolCallStarted", callId: "n1" }),
      expect.objectContaining({
        type: "ToolCallFinished",
        callId: "n1",
        outcome: "refused",
        reason: "APPEND_REJECTED",
      }),
    ]);
    expect(witnessed(file)).toEqual([]);
    await c.close("done");
  });
});
