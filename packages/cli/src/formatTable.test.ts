import { describe, expect, test } from "vitest";
import { formatTable } from "./formatTable.js";
import { colorEnabled, createStyle } from "./style.js";

describe("tables and colour", () => {
  test("columns align on visible width, numbers right-aligned, no trailing spaces", () => {
    const red = createStyle(true).red;
    const text = formatTable(
      [
        ["a", red("x"), "1"],
        ["long-name", "yy", "100"],
      ],
      { header: ["NAME", "C", "N"], right: [2] },
    );
    const plain = text.replaceAll("\u001b[31m", "").replaceAll("\u001b[39m", "");
    expect(plain).toBe("NAME       C     N\na          x     1\nlong-name  yy  100\n");
  });

  test("colour only on a TTY, never with NO_COLOR set, never on TERM=dumb", () => {
    const tty = { write: () => {}, isTTY: true };
    const pipe = { write: () => {}, isTTY: false };
    expect(colorEnabled(tty, {})).toBe(true);
    expect(colorEnabled(pipe, {})).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: "1" })).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: "" })).toBe(true);
    expect(colorEnabled(tty, { TERM: "dumb" })).toBe(false);
    expect(createStyle(false).red("x")).toBe("x");
  });
});
