import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// src/testing/ and dist/testing/ are both two levels below the package root.
const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The bin script of a third-party MCP server installed as a dev dependency (no npx, no network). */
export function thirdPartyServerPath(name: "server-everything" | "server-memory"): string {
  const dir = join(packageRoot, "node_modules", "@modelcontextprotocol", name);
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    bin?: string | Record<string, string>;
  };
  const bin = typeof pkg.bin === "string" ? pkg.bin : Object.values(pkg.bin ?? {})[0];
  if (bin === undefined)
    throw new Error(`@modelcontextprotocol/${name} declares no bin in ${dir}/package.json`);
  return join(dir, bin);
}
