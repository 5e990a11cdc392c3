import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getExtension, listTools } from "@toolledger/core";
import { afterEach, describe, expect, it } from "vitest";
import { openConversation } from "../conversation/conversation.js";
import { shipped, waitFor } from "../testing/fixtures.js";
import type { ExtensionStatus } from "./extensionStatus.js";
import { openHost, type ToolledgerHost } from "./toolledgerHost.js";

// Servers that are slow, hung or flaky, started in the background (serve's way).
const FAST_RETRY = { attempts: 4, initialDelayMs: 100, maxDelayMs: 1_000 };
let host: ToolledgerHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

const failures = async (h: ToolledgerHost, key: string) =>
  (await h.store.readStream(h.streamId))
    .map((e) => e.event)
    .flatMap((e) => (e.type === "ToolsFetchFailed" && e.extension === key ? [e.error] : []));

describe("startExtensions", () => {
  it("returns before any server is up; good servers join while hung ones still hang", async () => {
    host = await openHost({ connectTimeoutMs: 120_000, requestTimeoutMs: 120_000 });
    const phases: ExtensionStatus[] = [];
    host.status$.subscribe((s) => phases.push(s));
    const listing = waitFor(
      host.status$,
      (s) => s.key === "nolist" && s.phase === "listing",
      "nolist listing",
    );
    const ready = waitFor(
      host.status$,
      (s) => s.key === "good" && s.phase === "ready",
      "good ready",
    );
    await host.startExtensions([
      shipped("good", "notes"),
      shipped("noinit", "slowStart", ["--hang-init"]),
      shipped("nolist", "faulty", ["--hang-list"]),
    ]);
    // Nothing has been waited for: the registry knows the three extensions, no tools yet.
    expect(host.extensions().map((e) => [e.key, e.phase])).toEqual([
      ["good", "starting"],
      ["noinit", "starting"],
      ["nolist", "starting"],
    ]);
    await Promise.all([listing, ready]);
    expect(listTools(host.state).map((t) => t.owner)).toEqual(Array(5).fill("good"));
    const byKey = Object.fromEntries(host.extensions().map((e) => [e.key, e.phase]));
    expect(byKey).toEqual({ good: "ready", noinit: "starting", nolist: "listing" });
    expect(phases.some((p) => p.key === "good" && p.phase === "ready")).toBe(true);
  }, 30_000);

  it("a server that crashes twice on start is retried with backoff and joins; each failure is an event", async () => {
    const state = join(mkdtempSync(join(tmpdir(), "toolledger-crash-")), "starts");
    host = await openHost({ retry: FAST_RETRY });
    const ready = waitFor(host.status$, (s) => s.phase === "ready", "flaky ready", 20_000);
    await host.startExtensions([
      // Pinned legacy: an `auto` probe would spend a start on the SDK's sibling process (V1).
      shipped("flaky", "slowStart", ["--crash-first", "2", "--state", state, "--name", "flaky"], {
        protocolEra: "legacy",
      }),
    ]);
    await ready;
    expect(listTools(host.state).map((t) => t.publicName)).toEqual(["flaky__ping"]);
    const errors = await failures(host, "flaky");
    expect(errors).toHaveLength(2);
    expect(errors[0]).toContain("flaky: crashing on start 1 of 2");
    expect(errors[0]).toContain("(attempt 1 of 4; next attempt in 100 ms)");
    expect(errors[1]).toContain("(attempt 2 of 4; next attempt in 200 ms)");
    expect(host.extensions()[0]).toMatchObject({ phase: "ready", attempts: 3 });
    expect(getExtension(host.state, "flaky")?.fetch.status).toBe("ok");
  }, 30_000);

  it("gives up after the bounded number of attempts, and says so", async () => {
    host = await openHost({ retry: { ...FAST_RETRY, attempts: 3 } });
    const failed = waitFor(host.status$, (s) => s.phase === "failed", "giving up", 20_000);
    await host.startExtensions([shipped("dead", "faulty", ["--crash-on-start"])]);
    await failed;
    const errors = await failures(host, "dead");
    expect(errors).toHaveLength(3);
    expect(errors[2]).toContain(
      "(attempt 3 of 3; no more attempts: restart toolledger or reconnect it)",
    );
    expect(host.diagnostics().find((d) => d.kind === "fetch_failed")?.message).toContain(
      "no more attempts",
    );
  }, 30_000);

  it("a server that crashes while serving is restarted and its tools come back", async () => {
    host = await openHost({ retry: FAST_RETRY });
    await host.startExtensions([shipped("crashy", "faulty")]);
    await host.whenStarted();
    expect(host.extensions()[0]?.phase).toBe("ready");
    const retrying = waitFor(host.status$, (s) => s.phase === "retrying", "a restart scheduled");
    const back = waitFor(
      host.status$,
      (s) => s.phase === "ready" && s.attempts === 2,
      "crashy back",
      20_000,
    );
    await host.callUpstream("crashy", "crash", {}).catch(() => undefined);
    await retrying;
    await back;
    const errors = await failures(host, "crashy");
    expect(errors.at(-1)).toContain("(restarting in 100 ms: attempt 2 of 4)");
    expect(listTools(host.state).map((t) => t.rawName)).toContain("ok");
    expect((await host.callUpstream("crashy", "ok", {})).content).toEqual([
      { type: "text", text: "ok" },
    ]);
  }, 30_000);

  it("a server hung on tools/list is stopped and started afresh, never counted as ready", async () => {
    host = await openHost({ retry: { ...FAST_RETRY, attempts: 2 }, requestTimeoutMs: 300 });
    const phases: string[] = [];
    host.status$.subscribe((s) => phases.push(s.phase));
    const failed = waitFor(
      host.status$,
      (s) => s.phase === "failed",
      "giving up on nolist",
      20_000,
    );
    await host.startExtensions([shipped("nolist", "faulty", ["--hang-list"])]);
    await failed;
    expect(phases).not.toContain("ready");
    const errors = await failures(host, "nolist");
    expect(errors).toHaveLength(2);
    expect(errors[0]).toContain("tools/list");
    expect(errors[0]).toContain("(attempt 1 of 2; next attempt in 100 ms)");
  }, 30_000);

  it("issue 34.2: untilListed does not wait for a server whose attempt failed and that waits for its next one", async () => {
    // Were the missing command waited for, untilListed would wait its grace (10 minutes).
    host = await openHost({
      retry: { attempts: 3, initialDelayMs: 60_000, maxDelayMs: 60_000 },
      startupGraceMs: 600_000,
    });
    await host.startExtensions([
      { type: "stdio", name: "ghost", command: "/nonexistent" },
      shipped("good", "notes"),
    ]);
    await host.untilListed();
    const byKey = Object.fromEntries(host.extensions().map((e) => [e.key, e.phase]));
    expect(byKey).toEqual({ ghost: "retrying", good: "ready" });
    expect((await failures(host, "ghost"))[0]).toContain("ENOENT");
  }, 30_000);

  it("issue 34.5: a call of a tool of a server that never started waits at most its grace, then says it has not started", async () => {
    host = await openHost({ connectTimeoutMs: 120_000, startupGraceMs: 300 });
    await host.startExtensions([shipped("hang", "slowStart", ["--hang-init"])]);
    const conversation = await openConversation(host);
    try {
      // Were it waited for up to the call timeout (60 s), the test would time out first.
      const outcome = await conversation.callTool("hang__x", {});
      expect(outcome).toMatchObject({
        ok: false,
        error: {
          code: "EXTENSION_UNAVAILABLE",
          message: expect.stringContaining(
            'tool hang__x cannot be called: extension "hang" has not started (none of its tools has been listed yet). Its first start has not finished yet',
          ),
        },
      });
      expect(host.extensions()[0]).toMatchObject({ phase: "starting", attempts: 1 });
    } finally {
      await conversation.close("test over");
    }
  }, 30_000);

  it("a call or an enable naming a tool of a server still starting waits for it, then runs", async () => {
    host = await openHost();
    await host.startExtensions([
      shipped("late", "slowStart", ["--delay-ms", "1500", "--name", "late"]),
    ]);
    const conversation = await openConversation(host, { deferral: { mode: "lookup" } });
    try {
      expect(listTools(host.state)).toEqual([]);
      const enabled = await conversation.enableTools("c1", ["late__ping"]);
      expect(enabled).toEqual({ ok: true, names: ["late__ping"] });
      const outcome = await conversation.callTool("late__ping", {});
      expect(outcome.ok && outcome.result.content).toEqual([
        { type: "text", text: "pong from late" },
      ]);
      // A name no starting server could own is refused at once, as before.
      const unknown = await conversation.callTool("nobody__ping", {});
      expect(unknown.ok).toBe(false);
    } finally {
      await conversation.close("test over");
    }
  }, 30_000);
});
