import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareBytes, ordersNatively, sortBytewise } from "./compareBytes.js";

const utf8 = new TextEncoder();

function compareUtf8(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

describe("byte-wise order (R12, D4)", () => {
  it("puts U+FF01 before an astral character, unlike UTF-16 code units", () => {
    expect(compareBytes("\uFF01", "😀")).toBeLessThan(0);
    expect("\uFF01" < "😀").toBe(false);
  });

  it("property: agrees in sign with comparing UTF-8 bytes", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (a, b) => {
        expect(Math.sign(compareBytes(a, b))).toBe(Math.sign(compareUtf8(a, b)));
      }),
      { numRuns: 1000 },
    );
  });

  it("property: between strings ordersNatively accepts, `<` agrees with compareBytes", () => {
    expect(ordersNatively("a__p\u00E9\uD7FF")).toBe(true);
    expect(ordersNatively("a__p\uE000")).toBe(false);
    expect(ordersNatively("a__p😀")).toBe(false);
    const text = fc.oneof(fc.string({ unit: "grapheme" }), fc.stringMatching(/^[a-z_é]{0,6}$/));
    fc.assert(
      fc.property(text, text, (a, b) => {
        if (!ordersNatively(a) || !ordersNatively(b)) return;
        expect(a < b ? -1 : a > b ? 1 : 0).toBe(Math.sign(compareBytes(a, b)));
      }),
      { numRuns: 1000 },
    );
  });

  it("property: sortBytewise orders like sorting with compareBytes, with or without high code units", () => {
    const names = fc.array(
      fc.oneof(fc.string({ unit: "grapheme" }), fc.stringMatching(/^[a-z_]{0,6}$/)),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(names, (list) => {
        expect(sortBytewise([...list], (s) => s)).toEqual([...list].sort(compareBytes));
      }),
      { numRuns: 500 },
    );
  });
});
