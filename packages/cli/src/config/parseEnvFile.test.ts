import { expect, test } from "vitest";
import { parseEnvFile } from "./parseEnvFile.js";

test("dotenv lines: comments, export, quotes, trailing comments", () => {
  const text = [
    "# a comment",
    "",
    "A=1",
    "export B = two",
    'C="quoted # not a comment\\nnext"',
    "D='single $x'",
    "E=value # comment",
  ].join("\n");
  expect(parseEnvFile(text)).toEqual({
    ok: true,
    env: { A: "1", B: "two", C: "quoted # not a comment\nnext", D: "single $x", E: "value" },
  });
});

test("a line that is not an assignment is reported by number", () => {
  expect(parseEnvFile("A=1\nnot an assignment\n")).toEqual({
    ok: false,
    line: 2,
    message: "expected KEY=value",
  });
});
