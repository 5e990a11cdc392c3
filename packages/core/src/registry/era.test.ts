import { describe, expect, it } from "vitest";
import { decide } from "../decide/decide.js";
import { decodeEvent } from "../events/decodeEvent.js";
import { REGISTRY_EVENT_TYPES, type ToolledgerEvent } from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { host } from "../fold/fixtures.test-helpers.js";
import type { State } from "../fold/state.js";
import type { RecordEraCommand } from "./eraEvents.js";
import { getExtension } from "./extensions.js";
import { listTools } from "./listTools.js";

function apply(state: State, command: Parameters<typeof decide>[1]): [State, ToolledgerEvent[]] {
  const d = decide(state, command);
  if (!d.ok) throw new Error(d.error.message);
  return [d.events.reduce(evolve, state), d.events];
}

const modern: RecordEraCommand = {
  type: "RecordEra",
  at: "2026-12-03T10:00:00.000Z",
  extension: "Docs",
  era: "modern",
  protocolVersion: "2026-07-28",
  supportedVersions: ["2026-07-28", "2025-11-25"],
  how: "discover",
};

describe("V1 each upstream's era verdict", () => {
  it("V1 records the verdict on its extension; tools and the cache version stay", () => {
    const h = host();
    h.add("Docs");
    h.fetch("Docs", ["search"]);
    const before = h.state;
    const [after, events] = apply(before, modern);
    expect(events).toHaveLength(1);
    expect(REGISTRY_EVENT_TYPES.has("ExtensionEraDetected")).toBe(true);
    expect(decodeEvent(JSON.parse(JSON.stringify(events[0])))).toEqual({
      ok: true,
      event: events[0],
    });
    expect(getExtension(after, "docs")?.era).toEqual({
      era: "modern",
      protocolVersion: "2026-07-28",
      supportedVersions: ["2026-07-28", "2025-11-25"],
      how: "discover",
      authContext: null,
      at: "2026-12-03T10:00:00.000Z",
    });
    expect(after.version).toBe(before.version);
    expect(listTools(after)).toEqual(listTools(before));
  });

  it("V1 the same verdict again records nothing; a different one does", () => {
    const h = host();
    h.add("Docs");
    const [once] = apply(h.state, modern);
    expect(apply(once, { ...modern, at: "2026-12-03T11:00:00.000Z" })[1]).toEqual([]);
    const [, changed] = apply(once, {
      ...modern,
      era: "legacy",
      protocolVersion: "2025-11-25",
      supportedVersions: [],
      how: "initialize",
    });
    expect(changed).toMatchObject([
      { type: "ExtensionEraDetected", era: "legacy", how: "initialize" },
    ]);
    expect(apply(once, { ...modern, authContext: "sha256:abc" })[1]).toHaveLength(1);
  });

  it("V1 an invalidation keeps the verdict; a new config for the extension drops it", () => {
    const h = host();
    h.add("Docs");
    const [withEra] = apply(h.state, modern);
    const [invalidated] = apply(withEra, { type: "InvalidateTools", extension: "Docs" });
    expect(getExtension(invalidated, "docs")?.era?.era).toBe("modern");
    const [readded] = apply(invalidated, {
      type: "AddExtension",
      name: "Docs",
      kind: "streamable_http",
      configFingerprint: "another-server",
    });
    expect(getExtension(readded, "docs")?.era).toBeUndefined();
  });

  it("V1 a verdict for an unknown extension is refused, naming the known ones", () => {
    const h = host();
    h.add("Docs");
    const d = decide(h.state, { ...modern, extension: "nope" });
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.error.message).toContain("known: docs");
  });
});
