import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  InMemoryEventStore,
  loadConversationState,
  REGISTRY_EVENT_TYPES,
  replay,
  staleExtensions,
  type ToolledgerEvent,
} from "@toolledger/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AdapterError } from "../adapterError.js";
import type { StreamEvent } from "../ledger/streamWriter.js";
import { exampleServers } from "../serverScriptPath.js";
import {
  everything,
  memory,
  type RunningHttpServer,
  shipped,
  startHttpServer,
  waitFor,
} from "../testing/fixtures.js";
import {
  openStandaloneConversation,
  type StandaloneConversation,
} from "./standaloneConversation.js";

const text = (outcome: Awaited<ReturnType<StandaloneConversation["callTool"]>>): string => {
  if (!outcome.ok) throw new Error(`call refused: ${outcome.error.message}`);
  return (outcome.result.content as { text: string }[]).map((c) => c.text).join("");
};

describe("a session aggregating real servers (R3, R9, R12, R13, D3)", () => {
  let session: StandaloneConversation;
  let http: RunningHttpServer;
  let dir: string;
  const store = new InMemoryEventStore();
  const SECRET = "s3cret-header-value";

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolledger-agg-"));
    http = await startHttpServer();
    session = await openStandaloneConversation({ store, streamId: "agg", requestTimeoutMs: 5_000 });
    const results = await session.addExtensions([
      shipped("Paged Server", "paged", ["--tools", "25", "--page-size", "10"]),
      everything(),
      memory(join(dir, "memory.jsonl")),
      http.config("http", { "x-api-key": SECRET }),
      shipped("apponly", "appOnly"),
    ]);
    expect(results.map((r) => [r.key, r.ok])).toEqual([
      ["pagedserver", true],
      ["everything", true],
      ["memory", true],
      ["http", true],
      ["apponly", true],
    ]);
  });
  afterAll(async () => {
    await session?.close();
    await http?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("registers every page of every server, prefixed with its key (R1, R3, R9)", () => {
    const names = session.listTools().map((t) => t.publicName);
    expect(names.filter((n) => n.startsWith("pagedserver__"))).toHaveLength(25);
    expect(names).toContain("everything__get-sum");
    expect(names).toContain("memory__create_entities");
    expect(names).toContain("http__echo");
    expect(names).toContain("apponly__get_data");
    expect(session.listTools({ extension: "Paged Server" })).toHaveLength(25);
    expect(session.state.version).toBeGreaterThan(0);
    // server-everything registers more tools after the handshake and says list_changed, so
    // the first round may go stale (R11); what matters is that nothing is left stale.
    expect(staleExtensions(session.state)).toEqual([]);
    expect(session.diagnostics().filter((d) => d.kind !== "stale_fetch")).toEqual([]);
  });

  it("routes calls to the owning server with the raw name (R13), hyphens included", async () => {
    expect(text(await session.callTool("everything__get-sum", { a: 2, b: 3 }))).toContain("5");
    expect(text(await session.callTool("pagedserver__tool_007", { value: "x" }))).toBe(
      "tool_007:x",
    );
    expect(text(await session.callTool("http__echo", { value: "over http" }))).toBe(
      "echo:over http",
    );
    await session.callTool("memory__create_entities", {
      entities: [{ name: "Ada", entityType: "person", observations: ["wrote notes"] }],
    });
    expect(text(await session.callTool("memory__read_graph", {}))).toContain("Ada");
    // A mangled name is recovered once (R13).
    expect(text(await session.callTool("functions.everything.echo", { message: "hi" }))).toBe(
      "Echo: hi",
    );
  });

  it("refuses unknown and app-only tools as values (R13, D3)", async () => {
    const unknown = await session.callTool("everything__get-summ", {});
    expect(unknown).toMatchObject({
      ok: false,
      error: { code: "UNKNOWN_TOOL", suggestions: expect.arrayContaining(["everything__get-sum"]) },
    });
    const appOnly = await session.callTool("apponly__render_chart", {});
    expect(appOnly).toMatchObject({ ok: false, error: { code: "APP_ONLY_TOOL" } });
    expect(session.modelView().tools.map((t) => t.name)).not.toContain("apponly__render_chart");
    expect(session.modelView().tools.map((t) => t.name)).toContain("apponly__get_data");
  });

  it("passes headers and env to the servers but never into an event (R6)", async () => {
    expect(text(await session.callTool("http__check_header", {}))).toBe("x-api-key present");
    const events = JSON.stringify(await store.readAll({ limit: 100_000 }));
    expect(events).not.toContain(SECRET);
    expect(events).not.toContain(join(dir, "memory.jsonl"));
    expect(events).toContain("sha256:");
  });

  it("keeps state$ equal to the fold of its stored conversation and registry streams (C1)", async () => {
    const registry = (await store.readStream(session.registryStreamId)).map((e) => e.event);
    expect(registry.every((e) => REGISTRY_EVENT_TYPES.has(e.type))).toBe(true);
    expect(replay(registry)).toEqual(session.host.state);
    const { state } = await loadConversationState(store, "agg");
    expect(state).toEqual(session.state);
    const viaObservable = await waitFor(session.state$, () => true, "state$");
    expect(viaObservable).toBe(session.state);
  });
});

describe("live list changes (R11)", () => {
  let session: StandaloneConversation;
  const seen: StreamEvent[] = [];
  beforeAll(async () => {
    session = await openStandaloneConversation({ requestTimeoutMs: 5_000, refetchDebounceMs: 40 });
    session.events$.subscribe((e) => seen.push(e));
    await session.addExtensions([
      shipped("changing", "changing"),
      shipped("paged", "paged", ["--tools", "3"]),
    ]);
  });
  afterAll(async () => {
    await session?.close();
  });
  afterEach(async () => {
    await session.settled();
  });
  const eventsOf = (type: ToolledgerEvent["type"], after: number) =>
    seen.slice(after).filter((e) => e.event.type === type);

  it("invalidates on list_changed and refetches until current", async () => {
    const mark = seen.length;
    await session.callTool("changing__add_tool", { name: "fresh" });
    await waitFor(
      session.state$,
      (s) => s.version > 0 && session.listTools().some((t) => t.publicName === "changing__fresh"),
      "changing__fresh",
    );
    await session.settled();
    expect(eventsOf("ToolsInvalidated", mark)).toHaveLength(1);
    expect(session.listTools({ extension: "changing" }).map((t) => t.rawName)).toContain("fresh");
    // R11, issue 20.3: the version is global, but a change of one server refetches it alone.
    expect(
      eventsOf("ToolsFetched", mark)
        .map((e) => (e.event as { extension: string }).extension)
        .sort(),
    ).toEqual(["changing"]);
    expect(text(await session.callTool("changing__fresh", {}))).toBe("fresh ran");
  });

  it("folds a burst of list_changed into one refetch per extension", async () => {
    const before = JSON.parse(text(await session.callTool("changing__stats", {}))) as {
      listCount: number;
    };
    const mark = seen.length;
    await session.callTool("changing__burst", { count: 6 });
    // A refetch that finds the same tools changes no conversation state: watch the events.
    await waitFor(
      session.events$,
      () => eventsOf("ToolsFetched", mark).length > 0,
      "the refetch after the burst",
    );
    await session.settled();
    // R11: one invalidation between two fetches (the other five would invalidate nothing
    // more), and one refetch, of the extension that changed.
    expect(eventsOf("ToolsInvalidated", mark)).toHaveLength(1);
    expect(eventsOf("ToolsFetched", mark)).toHaveLength(1);
    const after = JSON.parse(text(await session.callTool("changing__stats", {}))) as {
      listCount: number;
    };
    expect(after.listCount - before.listCount).toBe(1);
    expect(session.state.version).toBe(
      (eventsOf("ToolsFetched", mark)[0]!.event as { startedAtVersion: number }).startedAtVersion,
    );
  });

  it("leaves a fetch that raced a list change stale, and the next fetch current (R11)", async () => {
    const mark = seen.length;
    await session.callTool("changing__arm_race", {});
    await waitFor(
      session.state$,
      () => session.listTools().some((t) => t.publicName === "changing__raced"),
      "changing__raced",
      10_000,
    );
    await session.settled();
    const fetches = eventsOf("ToolsFetched", mark)
      .map((e) => e.event)
      .filter(
        (e): e is Extract<ToolledgerEvent, { type: "ToolsFetched" }> =>
          e.type === "ToolsFetched" && e.extension === "changing",
      );
    expect(fetches.length).toBeGreaterThanOrEqual(2);
    const raced = fetches[0]!;
    expect(raced.tools.map((t) => t.name)).not.toContain("raced");
    const stale = session
      .diagnostics()
      .find((d) => d.kind === "stale_fetch" && d.extension === "changing");
    expect(stale).toMatchObject({ kind: "stale_fetch", startedAtVersion: raced.startedAtVersion });
    const last = fetches.at(-1)!;
    expect(last.startedAtVersion).toBe(session.state.version);
    expect(last.tools.map((t) => t.name)).toContain("raced");
    expect(session.state.version).toBeGreaterThan(raced.startedAtVersion);
  });
});

describe("deferred loading through the session (D4, D5, D9)", () => {
  let session: StandaloneConversation;
  beforeAll(async () => {
    session = await openStandaloneConversation();
    await session.configureDeferral("lookup", ["calc__calculate"]);
    await session.addExtensions([shipped("calc", "calculator"), shipped("notes", "notes")]);
  });
  afterAll(async () => {
    await session?.close();
  });

  it("shows eager tools and enable_tools, and lists the deferred names", () => {
    const view = session.modelView();
    expect(view.tools.map((t) => t.name)).toEqual(["calc__calculate", "enable_tools"]);
    expect(view.deferred).toContain("notes__add_note");
    expect(view.systemPrompt).toContain("notes__add_note");
  });

  it("refuses a deferred tool until it is enabled (D9), then calls it", async () => {
    const refused = await session.callTool("notes__add_note", { title: "t", body: "b" });
    expect(refused).toMatchObject({ ok: false, error: { code: "TOOL_NOT_ENABLED" } });
    if (!refused.ok)
      expect(refused.error.message).toContain('enable_tools with {"names": ["notes__add_note"]}');
    expect(await session.enableTools("c1", ["notes__add_note"])).toEqual({
      ok: true,
      names: ["notes__add_note"],
    });
    expect(
      text(await session.callTool("notes__add_note", { title: "Shopping", body: "milk" })),
    ).toBe("saved note 1: Shopping");
    expect(text(await session.callTool("calc__calculate", { expression: "(2 + 3) * 4" }))).toBe(
      "(2 + 3) * 4 = 20",
    );
  });

  it("fails a whole enable request with an unknown name and enables nothing (D5)", async () => {
    const outcome = await session.enableTools("c2", ["notes__list_notes", "notes__nope"]);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.invalid.map((i) => i.name)).toEqual(["notes__nope"]);
    expect(session.state.enabled).not.toContain("notes__list_notes");
    expect(await session.enableTools("c2", ["notes__list_notes"])).toMatchObject({
      ok: false,
      error: { code: "DUPLICATE_CALL_ID" },
    });
  });

  it("answers enable_tools as a tool call", async () => {
    const outcome = await session.callTool(
      "enable_tools",
      { names: ["notes__list_notes"] },
      { callId: "c3" },
    );
    expect(text(outcome)).toContain("Enabled notes__list_notes");
    expect(session.state.enabled).toContain("notes__list_notes");
    const bad = await session.callTool("enable_tools", { names: "notes__list_notes" });
    expect(bad).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENTS" } });
  });
});

describe("call timeout and cancellation", () => {
  let session: StandaloneConversation;
  beforeAll(async () => {
    session = await openStandaloneConversation({ callTimeoutMs: 5_000, requestTimeoutMs: 2_000 });
    await session.addExtension(shipped("faulty", "faulty"));
  });
  afterAll(async () => {
    await session?.close();
  });

  it("cancels a call: the caller gets CANCELLED and the server is told", async () => {
    const controller = new AbortController();
    const call = session.callTool("faulty__slow", { ms: 10_000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 150);
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdapterError);
    expect((error as AdapterError).code).toBe("CANCELLED");
    await expect
      .poll(async () => JSON.parse(text(await session.callTool("faulty__stats", {}))).cancelled, {
        timeout: 3_000,
      })
      .toBe(1);
  });

  it("times out a slow call but keeps a server that still answers pings", async () => {
    const error = await session
      .callTool("faulty__slow", { ms: 3_000 }, { timeoutMs: 200 })
      .catch((e: unknown) => e);
    expect((error as AdapterError).code).toBe("REQUEST_TIMEOUT");
    await session.settled();
    expect(session.extensions()).toEqual([
      {
        key: "faulty",
        name: "faulty",
        status: "connected",
        reason: null,
        phase: "ready",
        attempts: 1,
        nextAttemptAt: null,
      },
    ]);
    expect(text(await session.callTool("faulty__ok", {}))).toBe("ok");
  });
});

describe("session lifecycle", () => {
  it("starts the example servers, whose tools really compute", async () => {
    const session = await openStandaloneConversation();
    try {
      await session.addExtensions(exampleServers());
      expect(session.listTools().map((t) => t.publicName)).toEqual(
        expect.arrayContaining([
          "calculator__calculate",
          "calculator__convert_units",
          "notes__add_note",
          "notes__search_notes",
        ]),
      );
      expect(
        text(
          await session.callTool("calculator__convert_units", { value: 100, from: "C", to: "F" }),
        ),
      ).toBe("100 C = 212 F");
      expect(
        text(await session.callTool("calculator__statistics", { numbers: [3, 1, 2] })),
      ).toContain('"median":2');
      await session.callTool("notes__add_note", {
        title: "Groceries",
        body: "oat milk",
        tags: ["home"],
      });
      expect(text(await session.callTool("notes__search_notes", { text: "OAT" }))).toContain(
        "Groceries",
      );
    } finally {
      await session.close();
    }
  });

  it("resumes a stream: the same config appends no ExtensionAdded (R6) but fetches again; remove drops the tools (R7)", async () => {
    const store = new InMemoryEventStore();
    const config = shipped("paged", "paged", ["--tools", "4"]);
    const first = await openStandaloneConversation({ store, streamId: "s", registryStreamId: "h" });
    await first.addExtension(config);
    await first.close();
    const length = (await store.readStream("h")).length;

    const second = await openStandaloneConversation({
      store,
      streamId: "s",
      registryStreamId: "h",
    });
    try {
      expect(second.modelView()).toEqual(first.modelView());
      expect(second.state.conversation).toMatchObject({ status: "open", resumes: 1 });
      expect(second.host.state.host?.runs).toBe(2);
      await second.addExtension(config);
      const added = (await store.readStream("h")).slice(length).map((e) => e.event.type);
      expect(added).toEqual(["HostStarted", "ToolsFetched"]);
      expect(second.listTools()).toHaveLength(4);
      await second.removeExtension("paged");
      expect(second.listTools()).toEqual([]);
      expect(second.extensions()).toEqual([]);
      expect((await store.readStream("h")).at(-1)?.event).toMatchObject({
        type: "ExtensionRemoved",
        extension: "paged",
      });
    } finally {
      await second.close();
    }
  });

  it("refuses work after close", async () => {
    const session = await openStandaloneConversation();
    await session.close();
    await expect(session.callTool("x__y", {})).rejects.toMatchObject({ code: "SESSION_CLOSED" });
  });
});
