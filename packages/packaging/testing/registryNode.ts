import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { prebuildName, prebuildTarball } from "../src/release/nativeModule.js";
import { REPO, workspaceModule } from "./freshInstall.js";

/**
 * Node binaries from the npm registry's node-<platform>-<arch> packages (nodejs.org's builds,
 * repackaged: bin/node and include/), and better-sqlite3 compiled for each one's ABI: what
 * the release tests run on other Nodes than the machine's. Both are kept between runs in
 * node_modules/.cache (a fresh clone fetches and compiles them again).
 */
export const CACHE = join(REPO, "node_modules", ".cache", "toolledger-nodes");

/** The registry package of a Node version for this platform and architecture. */
export function nodePackage(version: string): string {
  return `node-${process.platform === "win32" ? "win" : process.platform}-${process.arch}@${version}`;
}

/**
 * `bin/node` of a Node version, alone in its folder (no headers beside it, as with many
 * installations), fetched with npm from the registry once.
 */
export function registryNode(version: string): { bin: string; node: string } {
  const folder = join(CACHE, `node-${version}`);
  const node = join(folder, "bin", "node");
  if (!existsSync(node)) {
    const work = mkdtempSync(join(tmpdir(), "toolledger-node-"));
    try {
      const packed = execFileSync(
        "npm",
        ["pack", nodePackage(version), "--json", "--pack-destination", work],
        { encoding: "utf8", env: userNpmEnv(), stdio: ["ignore", "pipe", "pipe"] },
      );
      const [described] = JSON.parse(packed) as { filename: string }[];
      if (!described) throw new Error(`npm pack ${nodePackage(version)} described no tarball`);
      const { filename } = described;
      execFileSync("tar", ["xzf", join(work, filename), "-C", work, "package/bin/node"]);
      mkdirSync(join(work, "node", "bin"), { recursive: true });
      renameSync(join(work, "package", "bin", "node"), join(work, "node", "bin", "node"));
      mkdirSync(CACHE, { recursive: true });
      rmSync(folder, { recursive: true, force: true });
      renameSync(join(work, "node"), folder);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  const reported = execFileSync(node, ["-p", "process.version"], { encoding: "utf8" }).trim();
  if (reported !== `v${version}`) throw new Error(`${node} is ${reported}, not v${version}`);
  return { bin: dirname(node), node };
}

/** The ABI (`process.versions.modules`) of a Node binary. */
export function abiOf(node: string): string {
  return execFileSync(node, ["-p", "process.versions.modules"], { encoding: "utf8" }).trim();
}

/**
 * A folder of prebuilt better-sqlite3 binaries (prebuild-install's `local_prebuilds`) holding
 * one for `node`'s ABI: compiled once per ABI, as `pnpm install` would on a machine with that
 * Node and no headers: by the workspace's patched install script, which takes the headers from
 * the npm registry. `binary` is the compiled module, `log` what the compile printed.
 */
export function prebuildFor(node: { bin: string; node: string }): {
  dir: string;
  binary: Buffer;
  log: string;
} {
  const module = workspaceModule();
  const dir = join(CACHE, "prebuilds");
  const file = join(dir, prebuildName(module.version, abiOf(node.node)));
  const binary = `${file}.node`;
  const log = `${file}.log`;
  if (existsSync(file) && existsSync(binary) && existsSync(log))
    return { dir, binary: readFileSync(binary), log: readFileSync(log, "utf8") };
  const work = mkdtempSync(join(tmpdir(), "toolledger-compile-"));
  try {
    const source = join(work, "better-sqlite3");
    cpSync(module.dir, source, {
      recursive: true,
      filter: (from) =>
        from !== join(module.dir, "build") && from !== join(module.dir, "node_modules"),
    });
    const r = spawnSync(node.node, ["offline-build.cjs"], {
      cwd: source,
      encoding: "utf8",
      env: {
        ...userNpmEnv(),
        PATH: `${node.bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
        npm_config_node_gyp: npmNodeGyp(),
        JOBS: "2",
      },
      timeout: 1_800_000,
    });
    const output = `${r.stdout}\n${r.stderr}`;
    if (r.status !== 0)
      throw new Error(`compiling better-sqlite3 with ${node.node} failed:\n${output}`);
    mkdirSync(dir, { recursive: true });
    const built = readFileSync(join(source, "build", "Release", "better_sqlite3.node"));
    writeFileSync(binary, built);
    writeFileSync(log, output);
    writeFileSync(`${file}.tmp`, prebuildTarball(built));
    renameSync(`${file}.tmp`, file);
    return { dir, binary: built, log: output };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** npm as this user has it (registry, certificates), without pnpm's or a test's settings. */
function userNpmEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? tmpdir() };
}

/** node-gyp as npm runs it for install scripts (npm ships it). */
function npmNodeGyp(): string {
  const npmCli = realpathSync(
    execFileSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).trim(),
  );
  const gyp = join(dirname(npmCli), "..", "node_modules", "node-gyp", "bin", "node-gyp.js");
  if (!existsSync(gyp)) throw new Error(`npm's node-gyp is not at ${gyp}`);
  return gyp;
}
