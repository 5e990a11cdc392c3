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
    expect(() => resolveDeferral({ deferral: "serach" }, {}, {}, "tools")).toThrow(
      expect.objectContaining({
        kind: "usage",
        message: expect.stringContaining('use "off", "lookup", "search", "auto"'),
      }),
    );
    expect(() => resolveDeferral({}, { GOOSE_TOOL_DEFERRAL: "all" })).toThrow(
      expect.objectContaining({ kind: "badInput", message: expect.stringContaining("lookup") }),
    );
  });

  test("D1/S1: GOOSE_TOOL_DEFERRAL keeps goose's meaning: search is a configuration error there", () => {
    expect(() => resolveDeferral({}, { GOOSE_TOOL_DEFERRAL: "search" })).toThrow(
      expect.objectContaining({ kind: "badInput", message: expect.stringContaining("lookup") }),
    );
    // The same value in goose's config file is refused as well.
    expect(() => resolveDeferral({}, {}, { GOOSE_TOOL_DEFERRAL: "search" })).toThrow(
      expect.objectContaining({ message: expect.stringContaining("the config file") }),
    );
  });

  test("S1: --deferral takes search and auto; flag, then environment, then the file's toolledger settings", () => {
    expect(resolveDeferral({ deferral: "search" }, {})).toEqual({ mode: "search", alwaysLoad: [] });
    expect(resolveDeferral({ deferral: "auto", budget: "500" }, {})).toEqual({
      mode: "auto",
      alwaysLoad: [],
      budget: 500,
    });
    expect(resolveDeferral({}, {}, {}, "serve", { mode: "search", budget: 900 })).toEqual({
      mode: "search",
      alwaysLoad: [],
      budget: 900,
    });
    expect(
      resolveDeferral({}, { GOOSE_TOOL_DEFERRAL: "lookup" }, {}, "serve", { mode: "search" }).mode,
    ).toBe("lookup");
    expect(
      resolveDeferral({}, {}, { GOOSE_TOOL_DEFERRAL: "lookup" }, "serve", { mode: "auto" }).mode,
    ).toBe("auto");
    expect(() => resolveDeferral({ budget: "0" }, {}, {}, "serve")).toThrow(
      expect.objectContaining({
        kind: "usage",
        message: expect.stringContaining("--deferral-budget"),
      }),
    );
  });
});
