import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fileUrlLiteral, runReadmeExample } from "@toolledger/core/testing";
import { afterAll, expect, it } from "vitest";
import { describeWithPostgres, dropSchemas, uniqueSchema } from "../testing/testServer.js";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const tmp = join(pkg, ".tmp-readme");

describeWithPostgres("README usage example", (url) => {
  const schema = uniqueSchema("readme");
  afterAll(async () => {
    rmSync(tmp, { recursive: true, force: true });
    await dropSchemas(url, [schema]);
  });

  it("runs and prints what its `// →` comments say", async () => {
    const target = new URL(url);
    target.searchParams.set("schema", schema);
    const example = await runReadmeExample({
      readme: join(pkg, "README.md"),
      heading: "Usage",
      replacements: [
        ['from "@toolledger/store-postgres"', `from ${fileUrlLiteral(join(pkg, "src/index.ts"))}`],
        ["process.env.TOOLLEDGER_DB!", JSON.stringify(target.href)],
      ],
      tmpDir: tmp,
    });
    expect(example.expected.length).toBe(2);
    expect(example.logged).toEqual(example.expected);
  });
});
