import { describe, expect, it } from "vitest";
import { decide } from "../decide/decide.js";
import { type ToolledgerEvent, EVENT_SCHEMA_VERSION as v } from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { host, tool } from "../fold/fixtures.test-helpers.js";
import { initialState } from "../fold/state.js";
import { resolveTool } from "../naming/resolveTool.js";
import { diagnostics } from "./diagnostics.js";
import { getExtension, listExtensions } from "./extensions.js";
import { listTools } from "./listTools.js";
import { servedTool } from "./servedTool.js";
import { staleExtensions } from "./staleExtensions.js";

const names = (tools: { publicName: string }[]) => tools.map((t) => t.publicName);

describe("R2–R4 registration", () => {
  it("R2 keeps the display name and uses the key everywhere else", () => {
    const h = host();
    h.add("My Ext 2");
    h.fetch("My Ext 2", ["read"]);
    expect(getExtension(h.state, "myext2")?.name).toBe("My Ext 2");
    expect(getExtension(h.state, "My Ext 2")?.key).toBe("myext2");
    expect(names(listTools(h.state))).toEqual(["myext2__read"]);
    expect(names(listTools(h.state, { extension: "MY EXT 2" }))).toEqual(["myext2__read"]);
  });

  it("R3 prefixes with the key unless the extension exposes unprefixed names", () => {
    const h = host();
    h.add("github");
    h.add("developer", { exposeUnprefixed: true, kind: "platform" });
    h.fetch("github", ["create_issue"]);
    h.fetch("developer", ["shell"]);
    expect(names(listTools(h.state))).toEqual(["github__create_issue", "shell"]);
    const shell = listTools(h.state, { extension: "developer" })[0]!;
    expect(shell.rawName).toBe("shell");
    expect(servedTool(h.state, shell).name).toBe("shell");
  });

  it("R4 sets the owner in _meta, overwriting the server's value and keeping other entries", () => {
    const h = host();
    h.add("github");
    h.fetch("github", [tool("x", { _meta: { goose_extension: "evil", other: 1 } })]);
    expect(servedTool(h.state, listTools(h.state)[0]!)._meta).toEqual({
      goose_extension: "github",
      other: 1,
    });
  });

  it("R4 uses a configurable owner key", () => {
    const h = host({ ownerMetaKey: "owner" });
    h.add("github");
    h.fetch("github", ["x"]);
    expect(servedTool(h.state, listTools(h.state)[0]!)._meta).toEqual({ owner: "github" });
  });

  it("R9 keeps each schema as sent and skips tools outside a non-empty availableTools (exact, case-sensitive)", () => {
    const h = host();
    h.add("fs", { availableTools: ["read", "Write"] });
    const schema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
    h.fetch("fs", [
      tool("read", { inputSchema: schema }),
      tool("write"),
      tool("Write"),
      tool("delete"),
    ]);
    expect(names(listTools(h.state))).toEqual(["fs__Write", "fs__read"]);
    expect(
      listTools(h.state, { extension: "fs" }).find((t) => t.rawName === "read")!.raw.inputSchema,
    ).toEqual(schema);
  });

  it("R9 reports a malformed tool (no inputSchema) and registers the rest", () => {
    const h = host();
    h.add("bad");
    h.fetch("bad", [{ name: "broken" }, tool("fine")]);
    expect(names(listTools(h.state))).toEqual(["bad__fine"]);
    expect(diagnostics(h.state)).toContainEqual(
      expect.objectContaining({
        kind: "rejected_tool",
        extension: "bad",
        rawName: "broken",
        reason: "malformed",
      }),
    );
  });

  it("R9 a failed fetch leaves the extension with no tools and a diagnostic", () => {
    const h = host();
    h.add("flaky");
    h.fetch("flaky", ["a"]);
    h.run({
      type: "RecordFetchFailure",
      extension: "flaky",
      startedAtVersion: h.state.version,
      error: "timeout after 500 ms",
    });
    expect(listTools(h.state)).toEqual([]);
    expect(diagnostics(h.state)).toContainEqual(
      expect.objectContaining({
        kind: "fetch_failed",
        extension: "flaky",
        error: "timeout after 500 ms",
      }),
    );
  });
});

describe("R6–R8 extensions", () => {
  it("R1/R6 refuses an extension whose key is empty, with a clear error", () => {
    const d = decide(initialState(), {
      type: "AddExtension",
      name: "   ",
      kind: "stdio",
      configFingerprint: "x",
    });
    expect(d.ok).toBe(false);
    if (!d.ok) {
      expect(d.error.code).toBe("EMPTY_EXTENSION_KEY");
      expect(d.error.message).toContain('"   "');
    }
  });

  it("R6 adding an identical config is a no-op: no event, same state object", () => {
    const h = host();
    h.add("github");
    h.fetch("github", ["a"]);
    const before = h.state;
    const d = decide(before, {
      type: "AddExtension",
      name: "github",
      kind: "stdio",
      configFingerprint: "fp:github",
    });
    expect(d).toEqual({ ok: true, events: [] });
    const event = {
      type: "ExtensionAdded",
      v,
      name: "github",
      kind: "stdio",
      exposeUnprefixed: false,
      hidden: false,
      availableTools: [],
      configFingerprint: "fp:github",
    } satisfies ToolledgerEvent;
    expect(evolve(before, event)).toBe(before);
  });

  it("R6 a different config replaces the extension, drops its tools until refetched, and bumps the version", () => {
    const h = host();
    h.add("github");
    h.fetch("github", ["a"]);
    const version = h.state.version;
    h.add("github", { configFingerprint: "fp:changed" });
    expect(h.state.version).toBe(version + 1);
    expect(listTools(h.state)).toEqual([]);
    expect(staleExtensions(h.state)).toEqual(["github"]);
  });

  it("R7 removing drops the extension and its tools", () => {
    const h = host();
    h.add("a");
    h.add("b");
    h.fetch("a", ["x"]);
    h.fetch("b", ["y"]);
    h.run({ type: "RemoveExtension", extension: "a" });
    expect(names(listTools(h.state))).toEqual(["b__y"]);
    expect(listExtensions(h.state).map((x) => x.key)).toEqual(["b"]);
  });

  it("R8 hides extensions whose key starts with _ or that were added hidden, unless includeHidden", () => {
    const h = host();
    h.add("_internal");
    h.add("secret", { hidden: true });
    h.add("public");
    for (const e of ["_internal", "secret", "public"]) h.fetch(e, ["t"]);
    expect(names(listTools(h.state))).toEqual(["public__t"]);
    expect(names(listTools(h.state, { includeHidden: true }))).toEqual([
      "_internal__t",
      "public__t",
      "secret__t",
    ]);
    expect(listTools(h.state, { extension: "secret" })).toEqual([]);
    expect(resolveTool(h.state, "secret__t").ok).toBe(false);
    expect(resolveTool(h.state, "secret__t", { includeHidden: true })).toMatchObject({
      ok: true,
      extension: "secret",
      rawName: "t",
    });
  });

  it("R6 never stores more than the fingerprint of the connection config", () => {
    const h = host();
    h.run({ type: "AddExtension", name: "x", kind: "stdio", configFingerprint: "sha256:abc" });
    expect(Object.keys(h.log[0]!).sort()).toEqual([
      "availableTools",
      "configFingerprint",
      "exposeUnprefixed",
      "hidden",
      "kind",
      "name",
      "type",
      "v",
    ]);
  });
});

describe("R10 duplicates", () => {
  it("R10 extension a / tool b__c and extension a__b / tool c both make a__b__c: a wins, collision names both", () => {
    const h = host();
    h.add("a__b");
    h.add("a");
    h.fetch("a__b", ["c"]);
    h.fetch("a", ["b__c"]);
    const winner = resolveTool(h.state, "a__b__c");
    expect(winner).toMatchObject({ ok: true, extension: "a", rawName: "b__c" });
    expect(names(listTools(h.state))).toEqual(["a__b__c"]);
    expect(listTools(h.state, { extension: "a__b" })).toEqual([]);
    expect(diagnostics(h.state).filter((d) => d.kind === "collision")).toEqual([
      expect.objectContaining({ publicName: "a__b__c", winner: "a", losers: ["a__b"] }),
    ]);
  });

  it("R10 the winner does not depend on fetch order, and removing the winner promotes the loser", () => {
    const h = host();
    h.add("a");
    h.add("a__b");
    h.fetch("a", ["b__c"]);
    h.fetch("a__b", ["c"]);
    expect(resolveTool(h.state, "a__b__c")).toMatchObject({ ok: true, extension: "a" });
    h.run({ type: "RemoveExtension", extension: "a" });
    expect(resolveTool(h.state, "a__b__c")).toMatchObject({
      ok: true,
      extension: "a__b",
      rawName: "c",
    });
    expect(diagnostics(h.state).filter((d) => d.kind === "collision")).toEqual([]);
  });

  it("R10 an unprefixed tool can collide with a prefixed one", () => {
    const h = host();
    h.add("github");
    h.add("zeta", { exposeUnprefixed: true });
    h.fetch("github", ["create_issue"]);
    h.fetch("zeta", ["github__create_issue"]);
    expect(resolveTool(h.state, "github__create_issue")).toMatchObject({
      ok: true,
      extension: "github",
    });
    expect(diagnostics(h.state)).toContainEqual(
      expect.objectContaining({ kind: "collision", winner: "github", losers: ["zeta"] }),
    );
  });

  it("R10 a server that lists one name twice keeps the first, in the server's order", () => {
    const h = host();
    h.add("s");
    h.fetch("s", [tool("x", { description: "first" }), tool("x", { description: "second" })]);
    expect(listTools(h.state).map((t) => t.raw.description)).toEqual(["first"]);
    expect(diagnostics(h.state)).toContainEqual(
      expect.objectContaining({ kind: "rejected_tool", reason: "duplicate" }),
    );
  });
});

describe("R11 cache version", () => {
  it("R11 counts changes: added (not identical), removed, invalidated; a fetch does not bump it", () => {
    const h = host();
    expect(h.state.version).toBe(0);
    h.add("a");
    h.add("a");
    expect(h.state.version).toBe(1);
    h.fetch("a", ["x"]);
    expect(h.state.version).toBe(1);
    h.run({ type: "InvalidateTools", extension: "a" });
    expect(h.state.version).toBe(2);
    h.run({ type: "RemoveExtension", extension: "a" });
    expect(h.state.version).toBe(3);
  });

  it("R11 a fetch that raced an invalidation is kept in the log but changes nothing; the next one fills the cache", () => {
    const h = host();
    h.add("a");
    h.fetch("a", ["old"]);
    const startedAt = h.state.version;
    h.run({ type: "InvalidateTools", extension: "a" });
    expect(staleExtensions(h.state)).toEqual(["a"]);
    h.run({
      type: "RecordFetch",
      extension: "a",
      startedAtVersion: startedAt,
      tools: [tool("raced")],
    });
    expect(names(listTools(h.state))).toEqual(["a__old"]);
    expect(h.log.at(-1)!.type).toBe("ToolsFetched");
    expect(diagnostics(h.state)).toContainEqual(
      expect.objectContaining({
        kind: "stale_fetch",
        extension: "a",
        count: 1,
        startedAtVersion: startedAt,
      }),
    );
    expect(staleExtensions(h.state)).toEqual(["a"]);
    h.fetch("a", ["new"]);
    expect(names(listTools(h.state))).toEqual(["a__new"]);
    expect(staleExtensions(h.state)).toEqual([]);
  });

  it("R11 every extension is stale until fetched at the current version", () => {
    const h = host();
    h.add("a");
    h.add("b");
    expect(staleExtensions(h.state)).toEqual(["a", "b"]);
    h.fetch("a", ["x"]);
    expect(staleExtensions(h.state)).toEqual(["b"]);
  });
});

describe("R12 filtering", () => {
  const h = host();
  h.add("GitHub");
  h.add("Dev Tools", { exposeUnprefixed: true });
  h.add("files");
  h.fetch("GitHub", ["b", "a"]);
  h.fetch("Dev Tools", ["shell"]);
  h.fetch("files", ["read"]);

  it("R12 normalises both arguments with R1 and sorts by public name", () => {
    expect(names(listTools(h.state))).toEqual(["files__read", "github__a", "github__b", "shell"]);
    expect(names(listTools(h.state, { extension: "Git Hub" }))).toEqual(["github__a", "github__b"]);
    expect(names(listTools(h.state, { extension: "dev tools" }))).toEqual(["shell"]);
    expect(names(listTools(h.state, { exclude: "GITHUB" }))).toEqual(["files__read", "shell"]);
    expect(names(listTools(h.state, { extension: "github", exclude: "github" }))).toEqual([]);
    expect(names(listTools(h.state, { extension: "files", exclude: "github" }))).toEqual([
      "files__read",
    ]);
    expect(listTools(h.state, { extension: "nope" })).toEqual([]);
  });
});

describe("R13 resolving calls", () => {
  it("R13 routes test_client, __cli__ent__ and client 🚀 tools by their public names", () => {
    const h = host();
    for (const n of ["test_client", "__cli__ent__", "client 🚀"]) {
      h.add(n);
      h.fetch(n, ["tool", "test__tool"]);
    }
    expect(resolveTool(h.state, "test_client__tool")).toMatchObject({
      ok: true,
      extension: "test_client",
      rawName: "tool",
    });
    // `__cli__ent__` starts with `_`, so it is hidden (R8): the host routes to it explicitly.
    expect(resolveTool(h.state, "__cli__ent____tool", { includeHidden: true })).toMatchObject({
      ok: true,
      extension: "__cli__ent__",
      rawName: "tool",
    });
    expect(resolveTool(h.state, "__cli__ent____tool").ok).toBe(false);
    expect(resolveTool(h.state, "client___tool")).toMatchObject({
      ok: true,
      extension: "client_",
      rawName: "tool",
    });
    expect(resolveTool(h.state, "client___test__tool")).toMatchObject({
      ok: true,
      extension: "client_",
      rawName: "test__tool",
    });
    expect(resolveTool(h.state, "client___tools")).toMatchObject({
      ok: false,
      error: { code: "UNKNOWN_TOOL" },
    });
    expect(resolveTool(h.state, "_client__tools")).toMatchObject({
      ok: false,
      error: { code: "UNKNOWN_TOOL" },
    });
  });

  it("R13 recovers github.create_issue, functions.github__create_issue and developer.shell", () => {
    const h = host();
    h.add("github");
    h.add("developer", { exposeUnprefixed: true, kind: "platform" });
    h.fetch("github", ["create_issue"]);
    h.fetch("developer", ["shell"]);
    for (const name of [
      "github.create_issue",
      "functions.github__create_issue",
      "functions:github.create_issue",
      "  github__create_issue ",
    ]) {
      expect(resolveTool(h.state, name), name).toMatchObject({
        ok: true,
        extension: "github",
        rawName: "create_issue",
        recovered: true,
      });
    }
    expect(resolveTool(h.state, "developer.shell")).toMatchObject({
      ok: true,
      extension: "developer",
      rawName: "shell",
      recovered: true,
    });
    expect(resolveTool(h.state, "functions.shell")).toMatchObject({
      ok: true,
      extension: "developer",
      rawName: "shell",
    });
    expect(resolveTool(h.state, "github__create_issue")).toMatchObject({
      ok: true,
      recovered: false,
    });
  });

  it("R13 a mangled name that matches two tools fails and names both", () => {
    const h = host();
    h.add("github");
    h.add("other", { exposeUnprefixed: true });
    h.fetch("github", ["create_issue"]);
    h.fetch("other", ["github.create_issue"]);
    expect(resolveTool(h.state, "github.create_issue")).toMatchObject({
      ok: true,
      extension: "other",
    });
    const r = resolveTool(h.state, "functions.github.create_issue");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("AMBIGUOUS_TOOL");
      expect(r.error.message).toContain("functions.github.create_issue");
      // The model is told the names it was served (R14: "github.create_issue" has a wire name).
      const wire = resolveTool(h.state, "github.create_issue");
      expect(wire.ok && wire.wireName).toMatch(/^github_create_issue_[0-9a-z]{8}$/);
      expect(r.error.suggestions).toEqual(
        [wire.ok ? wire.wireName : "", "github__create_issue"].sort(),
      );
    }
  });

  it("R13 an unknown name repeats the name and lists close public names", () => {
    const h = host();
    h.add("github");
    h.fetch("github", ["create_issue", "close_issue", "list_repos"]);
    const r = resolveTool(h.state, "github__create_isue");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.message).toContain('"github__create_isue"');
      expect(r.error.suggestions[0]).toBe("github__create_issue");
      expect(r.error.suggestions).not.toContain("github__list_repos");
    }
  });

  it("R13 mangling is recovered only once: a doubly mangled name does not resolve", () => {
    const h = host();
    h.add("github");
    h.fetch("github", ["create_issue"]);
    expect(resolveTool(h.state, "functions.functions.github__create_issue").ok).toBe(false);
  });
});

describe("keys that look like Object.prototype members", () => {
  it("registers and resolves __proto__ and constructor extensions like any other", () => {
    const h = host();
    h.add("__proto__");
    h.add("constructor");
    h.fetch("__proto__", ["x"]);
    h.fetch("constructor", ["__proto__"]);
    expect(names(listTools(h.state))).toEqual(["constructor____proto__"]);
    expect(names(listTools(h.state, { includeHidden: true }))).toEqual([
      "__proto____x",
      "constructor____proto__",
    ]);
    expect(resolveTool(h.state, "__proto____x", { includeHidden: true })).toMatchObject({
      ok: true,
      extension: "__proto__",
    });
    expect(resolveTool(h.state, "constructor____proto__")).toMatchObject({
      ok: true,
      extension: "constructor",
      rawName: "__proto__",
    });
    expect(resolveTool(h.state, "toString__x").ok).toBe(false);
    expect(JSON.parse(JSON.stringify(h.state))).toEqual(h.state);
  });
});

describe("R9 refetches keep what did not change (cost, not behaviour)", () => {
  it("R9 a refetch that lists the same tools keeps their registered objects and the same list", () => {
    const h = host();
    h.add("github");
    h.fetch("github", ["a", "b"]);
    const before = getExtension(h.state, "github")!.tools;
    h.run({ type: "InvalidateTools", extension: "github" });
    h.fetch("github", ["a", "b"]);
    expect(getExtension(h.state, "github")!.tools).toBe(before);
    h.run({ type: "InvalidateTools", extension: "github" });
    h.fetch("github", ["a", tool("b", { description: "changed" }), "c"]);
    const after = getExtension(h.state, "github")!.tools;
    expect(after[0]).toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
    expect(after[1]!.raw.description).toBe("changed");
    expect(after.map((t) => t.publicName)).toEqual(["github__a", "github__b", "github__c"]);
  });

  it("R9 a failed fetch still empties the extension; the recovering fetch registers the same tools again", () => {
    const h = host();
    h.add("github");
    h.fetch("github", ["a", "b"]);
    const before = getExtension(h.state, "github")!.tools;
    h.run({
      type: "RecordFetchFailure",
      extension: "github",
      startedAtVersion: h.state.version,
      error: "crashed",
    });
    expect(listTools(h.state)).toEqual([]);
    h.run({ type: "InvalidateTools", extension: "github" });
    h.fetch("github", ["a", "b"]);
    expect(listTools(h.state).map((t) => t.publicName)).toEqual(["github__a", "github__b"]);
    expect(getExtension(h.state, "github")!.tools).toBe(before);
  });
});

describe("fetch bookkeeping keeps every field of the extension", () => {
  it("G1 a tool fetch (and a failed one) leaves the extension's prompt and resource lists as they were", () => {
    const h = host();
    h.add("ref");
    h.run({
      type: "RecordPrompts",
      extension: "ref",
      startedAtVersion: 0,
      prompts: [{ name: "p" }],
    });
    const catalog = getExtension(h.state, "ref")!.catalog;
    expect(catalog?.prompts.map((p) => p.publicName)).toEqual(["ref__p"]);
    h.fetch("ref", ["t"]);
    expect(getExtension(h.state, "ref")!.catalog).toBe(catalog);
    h.run({
      type: "RecordFetchFailure",
      extension: "ref",
      startedAtVersion: h.state.version,
      error: "x",
    });
    expect(getExtension(h.state, "ref")!.catalog).toBe(catalog);
  });
});
