import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fileUrlLiteral, runReadmeExample } from "@toolledger/core/testing";
import { afterAll, describe, expect, it } from "vitest";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const tmp = join(pkg, ".tmp-readme");

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("README usage example", () => {
  it("runs and prints what its `// →` comments say", async () => {
    const example = await runReadmeExample({
      readme: join(pkg, "README.md"),
      heading: "Usage",
      replacements: [
        ['from "@toolledger/core"', `from ${fileUrlLiteral(join(pkg, "../core/src/index.ts"))}`],
        ['from "@toolledger/store-sqlite"', `from ${fileUrlLiteral(join(pkg, "src/index.ts"))}`],
        ['"sessions.db"', JSON.stringify(join(tmp, "sessions.db"))],
      ],
      tmpDir: tmp,
    });
    expect(example.expected.length).toBeGreaterThan(3);
    expect(example.logged).toEqual(example.expected);
  });
});
