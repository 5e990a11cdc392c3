import { afterEach, describe, expect, it } from "vitest";
import { AdapterError } from "../adapterError.js";
import type { ExtensionConfig } from "../extensionConfig.js";
import { shipped } from "../testing/fixtures.js";
import { ExtensionConnection } from "./extensionConnection.js";
import { fetchTools } from "./fetchTools.js";

const open: ExtensionConnection[] = [];
async function connect(config: ExtensionConfig): Promise<ExtensionConnection> {
  const c = await ExtensionConnection.connect(config, { connectTimeoutMs: 10_000 });
  open.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const limits = { requestTimeoutMs: 2_000, maxPages: 20 };

describe("fetchTools (R9: every page, guarded; a later page's failure is a partial fetch)", () => {
  it("collects every page of a paged server in the server's order", async () => {
    const c = await connect(shipped("paged", "paged", ["--tools", "25", "--page-size", "10"]));
    const { tools, pages } = await fetchTools(c, limits);
    expect(pages).toBe(3);
    expect(tools.map((t) => t.name)).toEqual(
      Array.from({ length: 25 }, (_, i) => `tool_${String(i).padStart(3, "0")}`),
    );
    expect(tools[0]?.inputSchema).toEqual({
      type: "object",
      properties: { value: { type: "string" } },
    });
  });

  it("R9 a later page that fails ends a partial fetch that keeps the pages before it and says why", async () => {
    const c = await connect(
      shipped("paged", "paged", ["--tools", "25", "--page-size", "10", "--fail-page", "2"]),
    );
    const fetched = await fetchTools(c, limits);
    expect(fetched.complete).toBe(false);
    expect(fetched.tools.map((t) => t.name)).toEqual(
      Array.from({ length: 10 }, (_, i) => `tool_${String(i).padStart(3, "0")}`),
    );
    expect(fetched.reason).toMatch(/tools\/list page 2 of extension "paged" failed/);
    expect(fetched.reason).toContain("page 2 is unavailable (--fail-page)");
  });

  it("R9 a failing first page fails the whole fetch", async () => {
    const c = await connect(shipped("paged", "paged", ["--fail-page", "1"]));
    const error = await fetchTools(c, limits).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdapterError);
    expect((error as AdapterError).message).toContain("page 1 is unavailable");
  });

  it("R9 a server that repeats a cursor is stopped: a partial fetch naming the cursor", async () => {
    const c = await connect(shipped("loop", "cursorLoop", ["--mode", "repeat"]));
    const fetched = await fetchTools(c, limits);
    expect(fetched).toMatchObject({ complete: false, pages: 2 });
    expect(fetched.tools.map((t) => t.name)).toEqual(["looping_1", "looping_2"]);
    expect(fetched.reason).toMatch(/repeated cursor "again" after page 2/);
  });

  it("R9 a server whose pages never end is stopped at maxPages: a partial fetch", async () => {
    const c = await connect(shipped("endless", "cursorLoop", ["--mode", "endless"]));
    const fetched = await fetchTools(c, { ...limits, maxPages: 7 });
    expect(fetched).toMatchObject({ complete: false, pages: 7 });
    expect(fetched.tools).toHaveLength(7);
    expect(fetched.reason).toMatch(/did not end after 7 pages/);
  });

  it("times out a tools/list that never answers, per request", async () => {
    const c = await connect(shipped("hang", "faulty", ["--hang-list"]));
    const started = Date.now();
    const error = await fetchTools(c, { ...limits, requestTimeoutMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect((error as AdapterError).code).toBe("REQUEST_TIMEOUT");
    expect(Date.now() - started).toBeLessThan(2_000);
    // The connection survives a slow list: calls still work.
    expect(await c.callTool("ok", {}, { timeoutMs: 2_000 })).toMatchObject({
      content: [{ type: "text", text: "ok" }],
    });
  });

  it("keeps a tool without inputSchema so the core can report it", async () => {
    const c = await connect(shipped("faulty", "faulty", ["--malformed"]));
    const { tools } = await fetchTools(c, limits);
    const bad = tools.find((t) => t.name === "no_schema");
    expect(bad).toBeDefined();
    expect(bad?.inputSchema).toBeUndefined();
  });

  it("names the command and the stderr tail when a server fails to start", async () => {
    const config = shipped("dead", "faulty", ["--crash-on-start"]);
    const error = await ExtensionConnection.connect(config, { connectTimeoutMs: 5_000 }).catch(
      (e: unknown) => e,
    );
    expect((error as AdapterError).code).toBe("START_FAILED");
    expect((error as AdapterError).message).toContain("faulty.js --crash-on-start");
    expect((error as AdapterError).message).toContain("refusing to start (--crash-on-start)");
    expect((error as AdapterError).message).toContain("exited with code 2");
  });
});
