import { describe, expect, it } from "vitest";
import { decodeEvent } from "../events/decodeEvent.js";
import { host, tool } from "../fold/fixtures.test-helpers.js";
import { diagnostics } from "./diagnostics.js";
import { listTools } from "./listTools.js";
import { formatBytes } from "./oversizedDefinition.js";

// V3 (issue 34.1): a definition over the host's cap is left out of the recorded listing and
// reported with it: the listing's event says what was left out and how large it was.

const MIB = 1024 * 1024;
const measure = { name: "measure", bytes: 10 * MIB + 150, limit: MIB };

describe("V3 oversized definitions", () => {
  it("a tool over the cap is a rejected_tool diagnostic with its size and the limit; the others are served", () => {
    const h = host();
    h.add("huge");
    const [event] = h.run({
      type: "RecordFetch",
      extension: "huge",
      startedAtVersion: h.state.version,
      tools: [tool("blob")],
      oversized: [measure],
    });
    expect(event).toMatchObject({ type: "ToolsFetched", oversized: [measure] });
    // The log reads it back as written.
    expect(decodeEvent(JSON.parse(JSON.stringify(event)))).toMatchObject({
      ok: true,
      event: { oversized: [measure] },
    });
    expect(listTools(h.state).map((t) => t.publicName)).toEqual(["huge__blob"]);
    expect(diagnostics(h.state)).toContainEqual({
      kind: "rejected_tool",
      extension: "huge",
      rawName: "measure",
      reason: "oversized",
      message:
        'huge: tool "measure" is 10.0 MiB, over the limit of 1.0 MiB on one definition; it is not registered or served',
    });
    // A later fetch without it clears the diagnostic.
    h.fetch("huge", ["blob", "measure"]);
    expect(diagnostics(h.state).filter((d) => d.kind === "rejected_tool")).toEqual([]);
  });

  it("R9: an oversized tool the extension's available_tools leaves out is not reported", () => {
    const h = host();
    h.add("huge", { availableTools: ["blob"] });
    h.run({
      type: "RecordFetch",
      extension: "huge",
      startedAtVersion: h.state.version,
      tools: [tool("blob")],
      oversized: [measure],
    });
    expect(diagnostics(h.state).filter((d) => d.kind === "rejected_tool")).toEqual([]);
  });

  it("prompts, resources and templates over the cap are rejected_definition diagnostics until the next fetch of their list", () => {
    const h = host();
    h.add("huge");
    h.run({
      type: "RecordPrompts",
      extension: "huge",
      startedAtVersion: 0,
      prompts: [{ name: "small" }],
      oversized: [{ name: "big_prompt", bytes: 2 * MIB, limit: MIB }],
    });
    h.run({
      type: "RecordResources",
      extension: "huge",
      startedAtVersion: 0,
      resources: [],
      resourceTemplates: [],
      oversized: [
        { name: "file:///huge", kind: "resource", bytes: 3 * MIB, limit: MIB },
        { name: "file:///huge/{id}", kind: "resource_template", bytes: 1536 * 1024, limit: MIB },
      ],
    });
    const rejected = diagnostics(h.state).filter((d) => d.kind === "rejected_definition");
    expect(rejected.map((d) => d.message)).toEqual([
      'huge: prompt "big_prompt" is 2.0 MiB, over the limit of 1.0 MiB on one definition; it is not served',
      'huge: resource "file:///huge" is 3.0 MiB, over the limit of 1.0 MiB on one definition; it is not served',
      'huge: resource template "file:///huge/{id}" is 1.5 MiB, over the limit of 1.0 MiB on one definition; it is not served',
    ]);
    expect(rejected.map((d) => d.kind === "rejected_definition" && d.what)).toEqual([
      "prompt",
      "resource",
      "resource_template",
    ]);
    h.run({ type: "InvalidatePrompts", extension: "huge" });
    h.run({ type: "RecordPrompts", extension: "huge", startedAtVersion: 1, prompts: [] });
    expect(
      diagnostics(h.state)
        .filter((d) => d.kind === "rejected_definition")
        .map((d) => d.kind === "rejected_definition" && d.what),
    ).toEqual(["resource", "resource_template"]);
  });

  it("R8: a hidden extension's oversized definitions are reported only with includeHidden", () => {
    const h = host();
    h.add("_inner");
    h.run({
      type: "RecordPrompts",
      extension: "_inner",
      startedAtVersion: 0,
      prompts: [],
      oversized: [{ name: "p", bytes: 2 * MIB, limit: MIB }],
    });
    expect(diagnostics(h.state).filter((d) => d.kind === "rejected_definition")).toEqual([]);
    expect(
      diagnostics(h.state, { includeHidden: true }).filter((d) => d.kind === "rejected_definition"),
    ).toHaveLength(1);
  });

  it("sizes are said in bytes, KiB or MiB", () => {
    expect(formatBytes(900)).toBe("900 bytes");
    expect(formatBytes(102_507)).toBe("100.1 KiB");
    expect(formatBytes(10 * MIB + 150)).toBe("10.0 MiB");
  });
});
