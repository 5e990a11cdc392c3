import { describe, expect, it } from "vitest";
import { withinCap } from "./oversizedDefinitions.js";

// V3 (issue 34.1): a listing split at the cap on one definition, in UTF-8 bytes.

describe("withinCap", () => {
  it("keeps what fits, in order, and reports the rest with its size and the limit", () => {
    const items = [
      { name: "a", d: "x" },
      { name: "big", d: "x".repeat(300) },
      { name: "b", d: "é".repeat(100) },
    ];
    const bytes = (i: object) => Buffer.byteLength(JSON.stringify(i));
    const limit = bytes(items[2]!) - 1;
    const { kept, oversized } = withinCap(items, limit, (i) => i.name, "resource");
    expect(kept.map((i) => i.name)).toEqual(["a"]);
    expect(oversized).toEqual([
      { name: "big", kind: "resource", bytes: bytes(items[1]!), limit },
      { name: "b", kind: "resource", bytes: bytes(items[2]!), limit },
    ]);
  });

  it("a listing within the cap is kept whole", () => {
    const items = [{ name: "a" }, { name: "b" }];
    expect(withinCap(items, 1024, (i) => i.name)).toEqual({ kept: items, oversized: [] });
  });
});
