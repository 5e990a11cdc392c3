import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { forEachLine } from "./forEachLine.js";

const dir = mkdtempSync(join(tmpdir(), "toolledger-lines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("forEachLine", () => {
  it("yields the non-empty lines of any text, whatever the chunk size", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.constant("")), {
          maxLength: 12,
        }),
        fc.boolean(),
        fc.integer({ min: 1, max: 64 }),
        async (parts, finalNewline, chunk) => {
          const text = parts.join("\n") + (finalNewline ? "\n" : "");
          const path = join(dir, `${n++}.jsonl`);
          writeFileSync(path, text);
          const seen: string[] = [];
          const stats = await forEachLine(path, (line) => seen.push(line), chunk);
          const expected = text.split("\n").filter((line) => line !== "");
          expect(seen).toEqual(expected);
          expect(stats).toEqual({ lines: expected.length, bytes: Buffer.byteLength(text) });
        },
      ),
      { numRuns: 300 },
    );
  });
});
