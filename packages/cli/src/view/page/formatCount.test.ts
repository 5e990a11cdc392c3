import { describe, expect, test } from "vitest";
import { formatCount } from "./formatCount.js";

describe("formatCount", () => {
  test("writes whole numbers as toLocaleString('en-US') does", () => {
    const values = [0, -0, 1, 12, 123, 999, 1000, 1234, 12_345, 100_000, 999_999, 1_000_000];
    for (let x = 1; x < Number.MAX_SAFE_INTEGER / 7; x = x * 7 + 3) values.push(x, -x);
    values.push(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER);
    for (const x of values) expect(formatCount(x), String(x)).toBe(x.toLocaleString("en-US"));
  });

  test("leaves other numbers to toLocaleString", () => {
    for (const x of [1.5, 1234.5678, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60])
      expect(formatCount(x)).toBe(x.toLocaleString("en-US"));
  });
});
