import { describe, expect, test } from "vitest";
import { resolveDeferral } from "./resolveDeferral.js";

describe("deferral from flags, environment and config file (D1, D2)", () => {
  test("D1: off by default", () => {
    expect(resolveDeferral({}, {})).toEqual({ mode: "off", alwaysLoad: [] });
  });

  test("D1: flags win over the environment, which wins over the goose file", () => {
    const env = { GOOSE_TOOL_DEFERRAL: "lookup", GOOSE_TOOL_DEFERRAL_ALWAYS_LOAD: "a__x" };
    const file = { GOOSE_TOOL_DEFERRAL: "off", GOOSE_TOOL_DEFERRAL_ALWAYS_LOAD: "b__y" };
    expect(resolveDeferral({}, {}, file)).toEqual({ mode: "off", alwaysLoad: ["b__y"] });
    expect(resolveDeferral({}, env, file)).toEqual({ mode: "lookup", alwaysLoad: ["a__x"] });
    expect(resolveDeferral({ deferral: "off", alwaysLoad: "c__z" }, env, file)).toEqual({
      mode: "off",
      alwaysLoad: ["c__z"],
    });
  });

  test("D2: the always-load list is trimmed, empties dropped, case kept", () => {
    expect(
      resolveDeferral({ deferral: "lookup", alwaysLoad: " A__x, ,b__Y ,," }, {}).alwaysLoad,
    ).toEqual(["A__x", "b__Y"]);
  });

  test("D1: an invalid mode names the allowed values; a flag is a usage error, the environment bad input", () => {
    expect(() => resolveDeferral({ deferral: "search" }, {}, {}, "tools")).toThrow(
      expect.objectContaining({
        kind: "usage",
        message: expect.stringContaining('use "lookup" or "off"'),
      }),
    );
    expect(() => resolveDeferral({}, { GOOSE_TOOL_DEFERRAL: "all" })).toThrow(
      expect.objectContaining({ kind: "badInput", message: expect.stringContaining("lookup") }),
    );
  });
});
