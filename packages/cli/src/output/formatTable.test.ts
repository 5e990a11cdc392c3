import { describe, expect, test } from "vitest";
import { topLevelHelp } from "../program/run.js";
import { elide, formatTable, MAX_CELL_WIDTH } from "./formatTable.js";
import { colorEnabled, createStyle, visibleWidth } from "./style.js";

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

  test("issue 34: a long cell is cut to the cap with `…`, so it does not pad its column for every row", () => {
    const long = "n".repeat(1000);
    const text = formatTable(
      [
        [long, "a"],
        ["short", "b"],
      ],
      { header: ["NAME", "X"] },
    );
    const lines = text.trimEnd().split("\n");
    expect(lines[1]).toBe(`${"n".repeat(MAX_CELL_WIDTH - 1)}…  a`);
    expect(lines[2]).toBe(`short${" ".repeat(MAX_CELL_WIDTH - 5)}  b`);
    // The last column is capped too.
    expect(formatTable([["a", long]]).trimEnd()).toBe(`a  ${"n".repeat(MAX_CELL_WIDTH - 1)}…`);
    expect(formatTable([["a", long]], { maxCellWidth: Number.POSITIVE_INFINITY })).toContain(long);
  });

  test("elide counts visible characters and keeps every colour code, so a cut colour still ends", () => {
    const red = createStyle(true).red;
    const cut = elide(red("abcdefghij"), 5);
    expect(cut).toBe("\u001b[31mabcd…\u001b[39m");
    expect(visibleWidth(cut)).toBe(5);
    expect(elide("abc", 3)).toBe("abc");
    // Code points, not UTF-16 units: an astral character is never split.
    expect(elide("😀😀😀😀", 3)).toBe("😀😀…");
  });

  test("help is prose the program wrote: shown whole", () => {
    for (const line of topLevelHelp().split("\n")) expect(line).not.toMatch(/…$/);
  });
});
