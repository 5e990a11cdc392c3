import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nameToKey } from "./nameToKey.js";

describe("R1 nameToKey", () => {
  it.each([
    ["Extension Manager", "extensionmanager"],
    ["my-ext", "my-ext"],
    ["My_Ext 2", "my_ext2"],
    ["foo.bar/baz", "foo_bar_baz"],
    ["client 🚀", "client_"],
    ["café", "caf_"],
    ["__cli__ent__", "__cli__ent__"],
    ["   ", ""],
    ["test_client", "test_client"],
  ])("R1 example %j → %j", (name, key) => {
    expect(nameToKey(name)).toBe(key);
  });

  it("R1 drops every Unicode White_Space character, including U+0085 and U+3000", () => {
    const whiteSpace = [
      0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2005, 0x200a, 0x2028,
      0x2029, 0x202f, 0x205f, 0x3000,
    ];
    for (const c of whiteSpace) {
      expect(nameToKey(`a${String.fromCodePoint(c)}b`), `U+${c.toString(16)}`).toBe("ab");
    }
  });

  it("R1 replaces characters JavaScript's \\s treats as space but Unicode does not (U+FEFF), and U+200B", () => {
    expect(nameToKey("a\uFEFFb")).toBe("a_b");
    expect(nameToKey("a\u200Bb")).toBe("a_b");
    expect(nameToKey("a\u180Eb")).toBe("a_b");
  });

  it("R1 keeps one `_` per character, astral ones included, and lowercases last", () => {
    expect(nameToKey("A😀B")).toBe("a_b");
    expect(nameToKey("Ä")).toBe("_");
    expect(nameToKey("..")).toBe("__");
  });

  it("R1 property: idempotent and yields only [a-z0-9_-]", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), (name) => {
        const key = nameToKey(name);
        expect(key).toMatch(/^[a-z0-9_-]*$/);
        expect(nameToKey(key)).toBe(key);
      }),
      { numRuns: 500 },
    );
  });

  it("R1 property: a name of allowed ASCII characters only is just lowercased", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{0,20}$/), (name) => {
        expect(nameToKey(name)).toBe(name.toLowerCase());
      }),
    );
  });
});
