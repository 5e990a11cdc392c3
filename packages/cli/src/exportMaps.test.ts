import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { REPO } from "../testing/spawnCli.js";

// docs/decisions.md: every built entry of every package's export map has `types` first and
// ends with `default`, so a resolver without the `import` condition finds the same file.
describe("export maps", () => {
  const packages = readdirSync(join(REPO, "packages")).map((name) => {
    const manifest = JSON.parse(
      readFileSync(join(REPO, "packages", name, "package.json"), "utf8"),
    ) as {
      name: string;
      private?: boolean;
      exports?: Record<string, Record<string, string>>;
    };
    return manifest;
  });

  test("every published package has an export map (a private tool like packaging may have none)", () => {
    expect(
      packages.filter((p) => !p.private && p.exports === undefined).map((p) => p.name),
    ).toEqual([]);
  });

  const mapped = packages.filter((p) => p.exports !== undefined);
  test.each(mapped.map((p) => [p.name, p.exports!] as const))("%s", (_, exports) => {
    for (const [entry, conditions] of Object.entries(exports)) {
      const keys = Object.keys(conditions);
      // A source-only entry (the workspace's own test helpers) has no built file to point at.
      if (conditions.import === undefined) {
        expect(keys, entry).toEqual(["@toolledger/source"]);
        continue;
      }
      expect(keys[0], entry).toBe("types");
      expect(keys.at(-1), entry).toBe("default");
      expect(conditions.default, entry).toBe(conditions.import);
    }
  });
});
