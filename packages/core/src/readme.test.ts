import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { fileUrlLiteral, runReadmeExample } from "../testing/readmeExample.js";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const tmp = join(pkg, ".tmp-readme");

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("README embedding example", () => {
  it("runs and prints what its `// →` comments say", async () => {
    const example = await runReadmeExample({
      readme: join(pkg, "README.md"),
      heading: "Embedding",
      replacements: [
        ['from "@toolledger/core"', `from ${fileUrlLiteral(join(pkg, "src/index.ts"))}`],
      ],
      tmpDir: tmp,
    });
    expect(example.code.split("\n").length).toBeLessThanOrEqual(26);
    expect(example.expected.length).toBeGreaterThan(3);
    expect(example.logged).toEqual(example.expected);
  });
});
