import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { REPO } from "../../testing/spawnCli.js";
import { COMMANDS } from "../program/run.js";

// Issue 20, point 6: the README says exactly which commands have --json.
describe("the README's --json claim", () => {
  test("names exactly the commands without --json", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8").replace(/\s+/g, " ");
    const claim = /every command but (.*?) has `--json`/.exec(readme)?.[1];
    expect(claim, "the README's sentence about --json").toBeDefined();
    const named = [...claim!.matchAll(/`([a-z]+)`/g)].map((m) => m[1]).sort();
    const without = COMMANDS.filter((c) => !c.spec.options.some((o) => o.name === "json"))
      .map((c) => c.spec.name)
      .sort();
    expect(named).toEqual(without);
  });
});
