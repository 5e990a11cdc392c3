import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const src = dirname(fileURLToPath(import.meta.url));
const FORBIDDEN =
  /^(node:|fs$|path$|child_process$|os$|crypto$|net$|http$|https$|better-sqlite3|pg$|postgres$|@modelcontextprotocol\/)/;

/** Walks the import graph from `entry`, returning every module specifier it reaches. */
function importGraph(entry: string): { file: string; specifier: string }[] {
  const seen = new Set<string>();
  const found: { file: string; specifier: string }[] = [];
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(
      /(?:import|export)\s[^'";]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s+["']([^"']+)["']/gm,
    )) {
      const specifier = m[1] ?? m[2] ?? m[3]!;
      found.push({ file, specifier });
      if (specifier.startsWith("."))
        queue.push(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
    }
  }
  return found;
}

describe("E5 the core is embeddable", () => {
  it("imports nothing from Node, SQLite or the MCP SDK, only zod", () => {
    const graph = importGraph(join(src, "index.ts"));
    expect(graph.length).toBeGreaterThan(20);
    const external = [
      ...new Set(graph.filter((i) => !i.specifier.startsWith(".")).map((i) => i.specifier)),
    ];
    expect(external).toEqual(["zod"]);
    expect(graph.filter((i) => FORBIDDEN.test(i.specifier))).toEqual([]);
  });

  it("every source file is reachable from index.ts or is a test, a test helper or the testing subpath", () => {
    const reached = new Set(
      importGraph(join(src, "index.ts")).map((i) =>
        resolve(dirname(i.file), i.specifier.replace(/\.js$/, ".ts")),
      ),
    );
    const orphans = readdirSync(src).filter(
      (f) =>
        f.endsWith(".ts") &&
        !/\.test(-helpers)?\.ts$/.test(f) &&
        f !== "index.ts" &&
        !reached.has(join(src, f)),
    );
    expect(orphans).toEqual([]);
  });

  it("the walker does see a forbidden import (so the guard can fail)", () => {
    expect(FORBIDDEN.test("node:fs")).toBe(true);
    expect(FORBIDDEN.test("@modelcontextprotocol/sdk/client/index.js")).toBe(true);
    expect(FORBIDDEN.test("better-sqlite3")).toBe(true);
    expect(FORBIDDEN.test("zod")).toBe(false);
  });
});
