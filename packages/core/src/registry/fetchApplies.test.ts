import { describe, expect, it } from "vitest";
import { host, tool } from "../fold/fixtures.test-helpers.js";
import { getExtension } from "./extensions.js";
import { listTools } from "./listTools.js";
import { staleExtensions } from "./staleExtensions.js";

/** Two extensions, each listed once (scoped fetches, as hosts record them since issue 20). */
function twoListed() {
  const h = host();
  h.add("a");
  h.add("b");
  for (const extension of ["a", "b"])
    h.run({
      type: "RecordFetch",
      extension,
      startedAtVersion: h.state.version,
      tools: [tool(`${extension}1`)],
      scope: "extension",
    });
  return h;
}

describe("R11 fetches scoped to their extension (issue 20)", () => {
  it("R11 one extension's list change leaves the other's fetch in flight current", () => {
    const h = twoListed();
    const started = h.state.version;
    h.run({ type: "InvalidateTools", extension: "a" });
    // b's fetch started before a said list_changed: it still fills b's cache.
    h.run({
      type: "RecordFetch",
      extension: "b",
      startedAtVersion: started,
      tools: [tool("b2")],
      scope: "extension",
    });
    expect(listTools(h.state, { extension: "b" }).map((t) => t.rawName)).toEqual(["b2"]);
    expect(getExtension(h.state, "b")!.staleFetches).toBe(0);
    expect(staleExtensions(h.state)).toEqual(["a"]);
  });

  it("R11 a fetch that raced its own extension's list change stays stale", () => {
    const h = twoListed();
    const started = h.state.version;
    h.run({ type: "InvalidateTools", extension: "a" });
    h.run({
      type: "RecordFetch",
      extension: "a",
      startedAtVersion: started,
      tools: [tool("old")],
      scope: "extension",
    });
    expect(listTools(h.state, { extension: "a" }).map((t) => t.rawName)).toEqual(["a1"]);
    expect(getExtension(h.state, "a")!.lastStaleFetch).toEqual({
      startedAtVersion: started,
      version: started + 1,
    });
    expect(staleExtensions(h.state)).toEqual(["a"]);
    // The refetch that starts after the change applies, though b changed meanwhile.
    const refetch = h.state.version;
    h.run({ type: "InvalidateTools", extension: "b" });
    h.run({
      type: "RecordFetch",
      extension: "a",
      startedAtVersion: refetch,
      tools: [tool("new")],
      scope: "extension",
    });
    expect(listTools(h.state, { extension: "a" }).map((t) => t.rawName)).toEqual(["new"]);
    expect(staleExtensions(h.state)).toEqual(["b"]);
  });

  it("R11 the host's own invalidate and a re-added extension make its scoped fetch stale", () => {
    const h = twoListed();
    h.run({ type: "InvalidateTools" });
    expect(staleExtensions(h.state)).toEqual(["a", "b"]);
    const h2 = twoListed();
    const started = h2.state.version;
    h2.add("a", { configFingerprint: "fp:a-changed" });
    h2.run({
      type: "RecordFetchFailure",
      extension: "a",
      startedAtVersion: started,
      error: "old connection",
      scope: "extension",
    });
    expect(getExtension(h2.state, "a")!.fetch.status).toBe("never");
    expect(staleExtensions(h2.state)).toEqual(["a"]);
  });

  it("R11 a scoped fetch from a version the registry never reached (a damaged log) is stale", () => {
    const h = twoListed();
    h.run({
      type: "RecordFetch",
      extension: "a",
      startedAtVersion: h.state.version + 5,
      tools: [tool("future")],
      scope: "extension",
    });
    expect(listTools(h.state, { extension: "a" }).map((t) => t.rawName)).toEqual(["a1"]);
    expect(getExtension(h.state, "a")!.staleFetches).toBe(1);
  });

  it("E6 R11 a fetch recorded without scope (every log before issue 20) keeps goose's global rule", () => {
    const h = host();
    h.add("a");
    h.add("b");
    h.fetch("a", ["a1"]);
    h.fetch("b", ["b1"]);
    const started = h.state.version;
    h.run({ type: "InvalidateTools", extension: "a" });
    // Unscoped: a's list change makes b's fetch in flight stale, and b needs fetching.
    expect(staleExtensions(h.state)).toEqual(["a", "b"]);
    h.run({ type: "RecordFetch", extension: "b", startedAtVersion: started, tools: [tool("b2")] });
    expect(listTools(h.state, { extension: "b" }).map((t) => t.rawName)).toEqual(["b1"]);
    expect(getExtension(h.state, "b")!.staleFetches).toBe(1);
    expect(h.log.at(-1)).not.toHaveProperty("scope");
  });
});
