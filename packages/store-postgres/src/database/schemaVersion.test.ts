import { EVENT_CATALOG_VERSION } from "@toolledger/core";
import { describe, expect, it } from "vitest";
import { migrations, SCHEMA_EVENT_CATALOG, SCHEMA_VERSION } from "./schema.js";

// An older toolledger refuses a store a newer one wrote (SCHEMA_TOO_NEW), as long as every new
// event catalogue comes with a schema step: this keeps the two in step.
describe("the schema version follows the event catalogue", () => {
  it("one catalogue per schema version, one migration step per version", () => {
    expect(SCHEMA_EVENT_CATALOG).toHaveLength(SCHEMA_VERSION);
    expect(migrations("toolledger")).toHaveLength(SCHEMA_VERSION);
  });

  it("the current schema version holds the current catalogue", () => {
    expect(
      SCHEMA_EVENT_CATALOG.at(-1),
      `event catalogue ${EVENT_CATALOG_VERSION} needs schema version ${SCHEMA_VERSION + 1}: add a migration step (it may change no table) and ${EVENT_CATALOG_VERSION} to SCHEMA_EVENT_CATALOG`,
    ).toBe(EVENT_CATALOG_VERSION);
  });

  it("history is not rewritten: the store arrived with 0.2.0 at catalogue 2; catalogues only grow", () => {
    expect(SCHEMA_EVENT_CATALOG[0]).toBe(2);
    for (let v = 1; v < SCHEMA_EVENT_CATALOG.length; v++)
      expect(SCHEMA_EVENT_CATALOG[v]!).toBeGreaterThanOrEqual(SCHEMA_EVENT_CATALOG[v - 1]!);
  });
});
