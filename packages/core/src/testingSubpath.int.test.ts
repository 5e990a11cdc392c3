import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

// Issue 11.7: `@toolledger/core/testing` (the store-contract suite) is built and exported like
// the main entry. A consumer package imports it by name, with no source condition, from dist.

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");
// A workspace package that depends on @toolledger/core, as a consumer's package would.
const consumerPackage = join(root, "packages/store-sqlite");
const dir = join(consumerPackage, ".tmp", `consumer-${process.pid}`);
const vitestBin = join(
  dirname(createRequire(import.meta.url).resolve("vitest/package.json")),
  "vitest.mjs",
);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("issue 11.7 @toolledger/core/testing as a consumer imports it", () => {
  it("resolves by package name to the built file, without the source condition", async () => {
    mkdirSync(dir, { recursive: true });
    const { stdout } = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const m = await import("@toolledger/core/testing");
         const main = await import("@toolledger/core");
         console.log(JSON.stringify({
           url: import.meta.resolve("@toolledger/core/testing"),
           mainUrl: import.meta.resolve("@toolledger/core"),
           exports: Object.keys(m).sort(),
           main: typeof main.decide,
         }));`,
      ],
      { cwd: dir },
    );
    const seen = JSON.parse(stdout) as {
      url: string;
      mainUrl: string;
      exports: string[];
      main: string;
    };
    expect(seen.url).toMatch(/\/packages\/core\/testing\/dist\/index\.js$/);
    expect(seen.mainUrl).toMatch(/\/packages\/core\/dist\/index\.js$/);
    expect(seen.exports).toEqual(
      expect.arrayContaining(["describeEventStoreContract", "sampleBatch"]),
    );
    expect(seen.main).toBe("function");
  });

  it("runs the store contract suite from a consumer's own vitest, against the built core", async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "vitest.config.mjs"),
      `export default { test: { include: ["*.test.ts"] } };\n`,
    );
    writeFileSync(
      join(dir, "contract.test.ts"),
      [
        'import { InMemoryEventStore } from "@toolledger/core";',
        'import { describeEventStoreContract } from "@toolledger/core/testing";',
        'describeEventStoreContract("InMemoryEventStore (consumer)", () => new InMemoryEventStore());',
        "",
      ].join("\n"),
    );
    const { stdout } = await run(
      process.execPath,
      [
        vitestBin,
        "run",
        "--root",
        dir,
        "--config",
        join(dir, "vitest.config.mjs"),
        "--reporter",
        "json",
      ],
      { cwd: dir, env: { ...process.env, NO_COLOR: "1", CI: "1" }, maxBuffer: 16 << 20 },
    );
    const report = JSON.parse(stdout.slice(stdout.indexOf("{"))) as {
      numTotalTests: number;
      numFailedTests: number;
      testResults: { name: string }[];
    };
    expect(report.numFailedTests).toBe(0);
    expect(report.numTotalTests).toBeGreaterThan(10);
    expect(report.testResults.map((r) => r.name)).toEqual([join(dir, "contract.test.ts")]);
  });
});
