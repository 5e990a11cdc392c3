import { describe, expect, it } from "vitest";
import { decodeEvent } from "../events/decodeEvent.js";
import { host } from "../fold/fixtures.test-helpers.js";
import { diagnostics } from "../registry/diagnostics.js";
import { getExtension } from "../registry/extensions.js";
import { staleExtensions } from "../registry/staleExtensions.js";
import { catalog, resolvePrompt, resourceOwner, templatePattern } from "./catalog.js";

function withLists() {
  const h = host();
  h.add("alpha");
  h.add("beta", { exposeUnprefixed: true });
  h.add("_internal");
  return h;
}

const prompts = (h: ReturnType<typeof host>) => catalog(h.state).prompts.map((p) => p.publicName);

describe("G1 prompts and resources as registry events", () => {
  it("R3: prompts are named like tools, prefixed unless the extension is unprefixed; R4 owner metadata", () => {
    const h = withLists();
    h.run({
      type: "RecordPrompts",
      extension: "alpha",
      startedAtVersion: 0,
      prompts: [{ name: "greet", _meta: { x: 1 } }],
    });
    h.run({
      type: "RecordPrompts",
      extension: "beta",
      startedAtVersion: 0,
      prompts: [{ name: "summarize" }],
    });
    expect(prompts(h)).toEqual(["alpha__greet", "summarize"]);
    const greet = catalog(h.state).prompts[0]!;
    expect(greet).toMatchObject({ owner: "alpha", rawName: "greet" });
    expect(greet.prompt._meta).toEqual({ x: 1, goose_extension: "alpha" });
    expect(resolvePrompt(h.state, "alpha__greet")).toEqual({
      ok: true,
      publicName: "alpha__greet",
      owner: "alpha",
      rawName: "greet",
    });
  });

  it("an unknown prompt is refused with close names", () => {
    const h = withLists();
    h.run({
      type: "RecordPrompts",
      extension: "alpha",
      startedAtVersion: 0,
      prompts: [{ name: "greet" }],
    });
    const r = resolvePrompt(h.state, "alpha__gret");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.suggestions).toEqual(["alpha__greet"]);
      expect(r.message).toContain("alpha__greet");
    }
  });

  it("R8: hidden extensions' prompts and resources are not served", () => {
    const h = withLists();
    h.run({
      type: "RecordPrompts",
      extension: "_internal",
      startedAtVersion: 0,
      prompts: [{ name: "secret" }],
    });
    h.run({
      type: "RecordResources",
      extension: "_internal",
      startedAtVersion: 0,
      resources: [{ uri: "x://a" }],
      resourceTemplates: [],
    });
    expect(prompts(h)).toEqual([]);
    expect(catalog(h.state).resources).toEqual([]);
    expect(catalog(h.state, { includeHidden: true }).prompts.map((p) => p.publicName)).toEqual([
      "_internal__secret",
    ]);
  });

  it("a list change invalidates only that list: a fetch that raced it is stale, tools stay fresh (R11 per list)", () => {
    const h = withLists();
    h.fetch("alpha", ["t"]);
    const toolsVersion = h.state.version;
    h.run({ type: "InvalidatePrompts", extension: "alpha" });
    expect(h.state.version).toBe(toolsVersion);
    expect(staleExtensions(h.state)).not.toContain("alpha");
    const list = () => getExtension(h.state, "alpha")!.catalog!.promptsList;
    expect(list().version).toBe(1);
    const before = h.state;
    h.run({
      type: "RecordPrompts",
      extension: "alpha",
      startedAtVersion: 0,
      prompts: [{ name: "old" }],
    });
    expect(prompts(h)).toEqual([]);
    expect(list().staleFetches).toBe(1);
    expect(h.state).not.toBe(before);
    h.run({
      type: "RecordPrompts",
      extension: "alpha",
      startedAtVersion: 1,
      prompts: [{ name: "new" }],
    });
    expect(prompts(h)).toEqual(["alpha__new"]);
    expect(list()).toMatchObject({ status: "ok", fetchedVersion: 1 });
  });

  it("a failed list fetch leaves the extension with none and a diagnostic", () => {
    const h = withLists();
    h.run({
      type: "RecordResources",
      extension: "alpha",
      startedAtVersion: 0,
      resources: [{ uri: "a://1" }],
      resourceTemplates: [],
    });
    h.run({
      type: "RecordResources",
      extension: "alpha",
      startedAtVersion: 0,
      resources: [],
      resourceTemplates: [],
      error: "boom",
    });
    expect(catalog(h.state).resources).toEqual([]);
    expect(diagnostics(h.state)).toContainEqual(
      expect.objectContaining({
        kind: "list_fetch_failed",
        extension: "alpha",
        list: "resources",
        error: "boom",
      }),
    );
  });

  it("G1: a URI two servers offer goes to the first in R10 order, with a diagnostic", () => {
    const h = withLists();
    h.run({
      type: "RecordResources",
      extension: "beta",
      startedAtVersion: 0,
      resources: [{ uri: "file:///same", name: "b" }, { uri: "file:///b" }],
      resourceTemplates: [],
    });
    h.run({
      type: "RecordResources",
      extension: "alpha",
      startedAtVersion: 0,
      resources: [{ uri: "file:///same", name: "a" }],
      resourceTemplates: [{ uriTemplate: "alpha://{id}/data" }],
    });
    const c = catalog(h.state);
    expect(c.resources.map((r) => [r.owner, r.resource.uri])).toEqual([
      ["alpha", "file:///same"],
      ["beta", "file:///b"],
    ]);
    expect(resourceOwner(h.state, "file:///same")).toBe("alpha");
    expect(resourceOwner(h.state, "file:///b")).toBe("beta");
    expect(resourceOwner(h.state, "alpha://42/data")).toBe("alpha");
    expect(resourceOwner(h.state, "nowhere://x")).toBeUndefined();
    expect(diagnostics(h.state)).toContainEqual(
      expect.objectContaining({
        kind: "catalog_conflict",
        what: "resource",
        name: "file:///same",
        winner: "alpha",
        losers: ["beta"],
      }),
    );
  });

  it("R7: removing an extension drops its prompts and resources", () => {
    const h = withLists();
    h.run({
      type: "RecordPrompts",
      extension: "alpha",
      startedAtVersion: 0,
      prompts: [{ name: "p" }],
    });
    h.run({ type: "RemoveExtension", extension: "alpha" });
    expect(prompts(h)).toEqual([]);
  });

  it("E1/E2: every new event decodes to itself, and an unknown extension is ignored with a reason", () => {
    const h = withLists();
    h.run({ type: "InvalidateResources", extension: "alpha" });
    h.run({
      type: "RecordResources",
      extension: "alpha",
      startedAtVersion: 1,
      resources: [{ uri: "a://1", extra: true }],
      resourceTemplates: [{ uriTemplate: "a://{x}" }],
    });
    h.run({ type: "InvalidatePrompts", extension: "alpha" });
    h.run({
      type: "RecordPrompts",
      extension: "alpha",
      startedAtVersion: 1,
      prompts: [{ name: "p", arguments: [{ name: "a" }] }],
      error: "x",
    });
    for (const e of h.log.slice(-4))
      expect(decodeEvent(JSON.parse(JSON.stringify(e)))).toEqual({ ok: true, event: e });
    expect(h.run({ type: "RemoveExtension", extension: "beta" })).toHaveLength(1);
  });
});

describe("resource templates (RFC 6570) as matchers", () => {
  it.each([
    ["test://template/{id}/data", "test://template/123/data", true],
    ["test://template/{id}/data", "test://template/1/2/data", false],
    ["file:///{+path}", "file:///a/b/c.txt", true],
    ["search://q{?query,limit}", "search://q?query=x&limit=2", true],
    ["search://q{?query}", "search://q", true],
    ["a.b://{x}", "aXb://1", false],
  ])("%s matches %s: %s", (template, uri, matches) => {
    expect(templatePattern(template).test(uri)).toBe(matches);
  });
});
