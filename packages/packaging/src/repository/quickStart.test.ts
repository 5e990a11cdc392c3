import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../../testing/freshInstall.js";

// CI (.ci/run) runs the README's quick start exactly as a new user would; this keeps the two
// the same, and the tarball the README installs the one `pnpm release` writes.

const readme = readFileSync(join(REPO, "README.md"), "utf8");
const ci = readFileSync(join(REPO, ".ci", "run"), "utf8");
const version = (
  JSON.parse(readFileSync(join(REPO, "packages", "cli", "package.json"), "utf8")) as {
    version: string;
  }
).version;

function quickStart(): string[] {
  const block = /## Quick start[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error("README.md has no ```sh block under ## Quick start");
  return block.trim().split("\n");
}

describe("the README's quick start", () => {
  it("is two commands: install the package from the release folder and run the demo; then every test", () => {
    const [first, second, ...rest] = quickStart();
    expect(rest).toEqual([]);
    expect(first).toContain("pnpm release");
    expect(first).toContain(
      `npm i -g --allow-scripts=better-sqlite3 ./release/toolledger-${version}.tgz`,
    );
    expect(first).toMatch(/&& toolledger demo$/);
    expect(second).toBe("pnpm test");
  });

  it("is what .ci/run runs, line for line", () => {
    const lines = ci.split("\n");
    for (const [i, command] of quickStart().entries()) {
      const marker = lines.findIndex((l) => l.startsWith(`echo "== quick start ${i + 1}/2`));
      expect(marker, `.ci/run has no "== quick start ${i + 1}/2" step`).toBeGreaterThan(-1);
      expect(lines[marker + 1]).toBe(command);
    }
  });

  it("names a release script that exists", () => {
    const scripts = (
      JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    expect(scripts.release).toBe("pnpm build && node packages/packaging/dist/main.js");
  });
});
