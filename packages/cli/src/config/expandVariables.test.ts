import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { expandVariables } from "./expandVariables.js";

const scope = {
  env: { TOKEN: "t0k3n-value", EMPTY: "", HOME: "/home/ada", USER: "ada" },
  home: "/home/ada",
  workspaceFolder: "/src/project",
};

describe("expandVariables", () => {
  test.each([
    ["${TOKEN}", "t0k3n-value"],
    ["${env:TOKEN}", "t0k3n-value"],
    ["${ TOKEN }", "t0k3n-value"],
    ["a-${TOKEN}-b", "a-t0k3n-value-b"],
    ["${HOME}/x", "/home/ada/x"],
    ["${userHome}/x", "/home/ada/x"],
    ["${workspaceFolder}/.env", "/src/project/.env"],
    ["${workspaceFolderBasename}", "project"],
    ["a${/}b${pathSeparator}c", "a/b/c"],
    ["${MISSING:-fallback}", "fallback"],
    ["${EMPTY:-fallback}", "fallback"],
    ["${EMPTY}", ""],
    ["$TOKEN and $ alone", "$TOKEN and $ alone"],
  ])("%s → %s", (input, expected) => {
    const result = expandVariables(input, scope);
    expect(result).toMatchObject({ ok: true, value: expected });
  });

  test("values of variables are secrets; places (HOME, userHome, USER) and defaults are not", () => {
    const result = expandVariables("${TOKEN} ${HOME} ${USER} ${userHome} ${X:-dflt}", scope);
    expect(result).toEqual({
      ok: true,
      value: "t0k3n-value /home/ada ada /home/ada dflt",
      secrets: ["t0k3n-value"],
    });
  });

  test("an unset variable names itself; an input or a malformed reference is refused", () => {
    expect(expandVariables("x ${NOPE} ${TOKEN}", scope)).toEqual({
      ok: false,
      variable: "NOPE",
      message: "environment variable NOPE is not set",
    });
    expect(expandVariables("${input:key}", scope)).toMatchObject({
      ok: false,
      variable: "${input:key}",
    });
    expect(expandVariables("${not a name}", scope)).toMatchObject({ ok: false });
  });

  test("text without ${ is returned unchanged (property)", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes("${")),
        (text) => {
          expect(expandVariables(text, scope)).toEqual({ ok: true, value: text, secrets: [] });
        },
      ),
    );
  });
});
