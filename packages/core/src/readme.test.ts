import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const tmp = join(pkg, ".tmp-readme");

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("README embedding example", () => {
  it("runs and prints what its `// →` comments say", async () => {
    const readme = readFileSync(join(pkg, "README.md"), "utf8");
    const block = readme.match(/## Embedding[\s\S]*?```ts\n([\s\S]*?)```/)?.[1];
    expect(block, "README.md has a ts block under ## Embedding").toBeDefined();
    const code = block!.replace(
      'from "@toolledger/core"',
      `from ${JSON.stringify(pathToFileURL(join(pkg, "src/index.ts")).href)}`,
    );
    expect(code.split("\n").length).toBeLessThanOrEqual(26);
    const expected = [...code.matchAll(/\/\/ → (.*)$/gm)].map((m) => JSON.parse(m[1]!));
    expect(expected.length).toBeGreaterThan(3);
    mkdirSync(tmp, { recursive: true });
    const file = join(tmp, "example.ts");
    writeFileSync(file, code);
    const logged: unknown[] = [];
    const spy = vi
      .spyOn(console, "log")
      .mockImplementation((value: unknown) => void logged.push(value));
    try {
      await import(pathToFileURL(file).href);
    } finally {
      spy.mockRestore();
    }
    expect(logged).toEqual(expected);
  });
});
