import { afterEach, describe, expect, it } from "vitest";
import { AdapterError } from "../adapterError.js";
import {
  openStandaloneConversation,
  type StandaloneConversation,
} from "../conversation/standaloneConversation.js";
import { shipped, startHttpServer, waitFor } from "../testing/fixtures.js";

const sessions: StandaloneConversation[] = [];
async function session(): Promise<StandaloneConversation> {
  const s = await openStandaloneConversation({
    requestTimeoutMs: 500,
    callTimeoutMs: 500,
    connectTimeoutMs: 5_000,
  });
  sessions.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

const okText = async (
  s: StandaloneConversation,
  name: string,
  args: Record<string, unknown> = {},
) => {
  const outcome = await s.callTool(name, args);
  if (!outcome.ok) throw new Error(outcome.error.message);
  return (outcome.result.content as { text: string }[])[0]?.text;
};
const failures = (s: StandaloneConversation) =>
  s.diagnostics().filter((d) => d.kind === "fetch_failed");

describe("faults stay contained (R9 ToolsFetchFailed, E3 diagnostics)", () => {
  it("a server that crashes mid-session is reported, the others keep working, and it can be reconnected", async () => {
    const s = await session();
    await s.addExtensions([
      shipped("faulty", "faulty"),
      shipped("paged", "paged", ["--tools", "3"]),
    ]);
    const error = await s.callTool("faulty__crash", {}).catch((e: unknown) => e);
    expect((error as AdapterError).code).toBe("CONNECTION_CLOSED");
    await waitFor(s.state$, () => failures(s).length === 1, "the crash in the diagnostics");
    const [failure] = failures(s);
    expect(failure).toMatchObject({ kind: "fetch_failed", extension: "faulty" });
    expect(failure?.message).toContain("exited with code 3");
    expect(failure?.message).toContain("crashing on request");
    expect(s.extensions().find((e) => e.key === "faulty")?.status).toBe("disconnected");
    expect(s.listTools({ extension: "faulty" })).toEqual([]);
    expect(await okText(s, "paged__tool_001", { value: "still" })).toBe("tool_001:still");

    await s.reconnect("faulty");
    expect(failures(s)).toEqual([]);
    expect(await okText(s, "faulty__ok")).toBe("ok");
  });

  it("a server that hangs past the timeout is reported as hung and stopped; the others keep working", async () => {
    const s = await session();
    await s.addExtensions([
      shipped("faulty", "faulty"),
      shipped("paged", "paged", ["--tools", "3"]),
    ]);
    const started = Date.now();
    const error = await s.callTool("faulty__freeze", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdapterError);
    expect((error as AdapterError).code).toBe("REQUEST_TIMEOUT");
    expect(Date.now() - started).toBeLessThan(2_000);
    await waitFor(s.state$, () => failures(s).length === 1, "the hang in the diagnostics");
    expect(failures(s)[0]?.message).toContain("stopped responding");
    expect(s.extensions().find((e) => e.key === "faulty")).toMatchObject({
      status: "disconnected",
      reason: expect.stringContaining("stopped responding"),
    });
    expect(await okText(s, "paged__tool_002", { value: "v" })).toBe("tool_002:v");
    await s.reconnect("faulty");
    expect(await okText(s, "faulty__ok")).toBe("ok");
  });

  it("a tools/list that hangs fails that fetch only", async () => {
    const s = await session();
    await s.addExtensions([
      shipped("hanging", "faulty", ["--hang-list"]),
      shipped("paged", "paged", ["--tools", "3"]),
    ]);
    expect(failures(s)).toMatchObject([
      { extension: "hanging", error: expect.stringContaining("no answer within 500 ms") },
    ]);
    expect(s.listTools().map((t) => t.publicName)).toEqual([
      "paged__tool_000",
      "paged__tool_001",
      "paged__tool_002",
    ]);
  });

  it("a malformed tool (no inputSchema) is a rejected_tool diagnostic; the rest of the server registers", async () => {
    const s = await session();
    await s.addExtension(shipped("faulty", "faulty", ["--malformed"]));
    expect(s.diagnostics()).toMatchObject([
      { kind: "rejected_tool", extension: "faulty", rawName: "no_schema", reason: "malformed" },
    ]);
    expect(s.listTools().map((t) => t.rawName)).toEqual(["crash", "freeze", "ok", "slow", "stats"]);
    expect(await okText(s, "faulty__ok")).toBe("ok");
  });

  it("R9 a repeating cursor is stopped and recorded as a partial fetch that keeps what it gathered", async () => {
    const s = await session();
    await s.addExtensions([
      shipped("loop", "cursorLoop", ["--mode", "repeat"]),
      shipped("paged", "paged", ["--tools", "2"]),
    ]);
    expect(failures(s)).toEqual([]);
    expect(s.diagnostics()).toContainEqual(
      expect.objectContaining({
        kind: "partial_fetch",
        extension: "loop",
        reason: expect.stringContaining("repeated cursor"),
      }),
    );
    expect(s.listTools().map((t) => t.publicName)).toEqual([
      "loop__looping_1",
      "loop__looping_2",
      "paged__tool_000",
      "paged__tool_001",
    ]);
  });

  it("R9 a page that fails after the first is recorded as ToolsFetched with complete: false and the reason", async () => {
    const s = await session();
    await s.addExtension(
      shipped("paged", "paged", ["--tools", "5", "--page-size", "2", "--fail-page", "3"]),
    );
    expect(s.listTools().map((t) => t.rawName)).toEqual([
      "tool_000",
      "tool_001",
      "tool_002",
      "tool_003",
    ]);
    const fetched = (await s.store.readAll())
      .map((e) => e.event)
      .filter((e) => e.type === "ToolsFetched");
    expect(fetched.at(-1)).toMatchObject({
      complete: false,
      reason: expect.stringContaining('tools/list page 3 of extension "paged" failed'),
    });
    expect(s.diagnostics()).toContainEqual(
      expect.objectContaining({ kind: "partial_fetch", extension: "paged" }),
    );
  });

  it("a server that fails to start names its command and stderr tail, and the rest start", async () => {
    const s = await session();
    const results = await s.addExtensions([
      shipped("dead", "faulty", ["--crash-on-start"]),
      shipped("paged", "paged", ["--tools", "2"]),
    ]);
    expect(results[0]).toMatchObject({ key: "dead", ok: false });
    expect(results[0]?.error?.code).toBe("START_FAILED");
    expect(results[0]?.error?.message).toMatch(/faulty\.js --crash-on-start.*refusing to start/s);
    expect(results[1]).toMatchObject({ key: "paged", ok: true });
    expect(failures(s)).toMatchObject([
      { extension: "dead", error: expect.stringContaining("refusing to start") },
    ]);
    const leaky = shipped("dead2", "faulty", ["--crash-on-start"], {
      env: { FAULTY_TOKEN: "tok-very-secret" },
    });
    const thrown = await s.addExtension(leaky).catch((e: unknown) => e);
    expect(thrown).toMatchObject({ code: "START_FAILED" });
    // The server printed its token to stderr: the message and the log carry it redacted (R6).
    expect((thrown as AdapterError).message).toContain("token=[redacted]");
    expect(JSON.stringify(s.state)).not.toContain("tok-very-secret");
    expect(JSON.stringify(await s.store.readStream(s.streamId))).not.toContain("tok-very-secret");
    expect(s.listTools()).toHaveLength(2);
  });

  it("an HTTP server that goes away is found by the failed call's ping and reported", async () => {
    const http = await startHttpServer();
    try {
      const s = await session();
      await s.addExtensions([http.config("remote"), shipped("paged", "paged", ["--tools", "2"])]);
      expect(await okText(s, "remote__echo", { value: "up" })).toBe("echo:up");
      await http.stop();
      const error = await s.callTool("remote__echo", { value: "down" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AdapterError);
      await waitFor(
        s.state$,
        () => failures(s).length === 1,
        "the lost HTTP server in the diagnostics",
      );
      expect(failures(s)[0]).toMatchObject({
        extension: "remote",
        error: expect.stringContaining("unreachable"),
      });
      expect(s.extensions().find((e) => e.key === "remote")?.status).toBe("disconnected");
      expect(await okText(s, "paged__tool_001", { value: "v" })).toBe("tool_001:v");
    } finally {
      await http.stop();
    }
  });
});
