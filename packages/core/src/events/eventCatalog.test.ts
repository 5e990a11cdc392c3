import { describe, expect, it } from "vitest";
import { EVENT_CATALOG, EVENT_CATALOG_VERSION } from "./eventCatalog.js";
import { ToolledgerEventSchema } from "./events.js";

// E6 forward: every event this build can write is in the catalogue, so adding one without a
// new catalogue version (and the stores' schema step that makes older releases refuse) fails.
describe("the event catalogue", () => {
  it("lists exactly the event types and versions of the event union", () => {
    const union = ToolledgerEventSchema.options.map(
      (o) => `${o.shape.type.value}@${o.shape.v.value}`,
    );
    const listed = EVENT_CATALOG.flatMap((c) => c.added);
    const missing = union.filter((e) => !listed.includes(e));
    expect(
      missing,
      `events missing from EVENT_CATALOG: add catalogue version ${EVENT_CATALOG_VERSION + 1} listing them, raise each store's schema version with it, and name them in CHANGELOG.md`,
    ).toEqual([]);
    expect(listed.filter((e) => !union.includes(e))).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it("names what changed in earlier events by a type and version the union has", () => {
    const union = new Set(
      ToolledgerEventSchema.options.map((o) => `${o.shape.type.value}@${o.shape.v.value}`),
    );
    for (const c of EVENT_CATALOG)
      for (const change of c.changed ?? []) {
        const [event, what] = change.split(": ");
        expect(union.has(event!), change).toBe(true);
        expect(what, change).toBeTruthy();
      }
  });

  it("numbers its versions 1, 2, … with the newest last", () => {
    expect(EVENT_CATALOG.map((c) => c.version)).toEqual(EVENT_CATALOG.map((_, i) => i + 1));
    expect(EVENT_CATALOG_VERSION).toBe(EVENT_CATALOG.length);
  });
});
