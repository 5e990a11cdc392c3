import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { tarGz } from "./tarGz.js";

/** The command's native dependency: its install script is the one npm 11 users allow. */
export const NATIVE_MODULE = "better-sqlite3";

/** What the command's tarball carries of better-sqlite3's compiled module, or why nothing. */
export type NativeModule =
  | {
      carried: true;
      version: string;
      /** The prebuilt binary's tarball, relative to the package. */
      file: string;
      /** The Node that packed the release, whose ABI the binary is for. */
      node: string;
      abi: string;
      platform: string;
      arch: string;
    }
  | { carried: false; version: string; reason: string };

/** The folder, relative to the command's package, of its prebuilt binaries. */
export const PREBUILDS = "prebuilds";
/** prebuild-install reads the nearest `.prebuild-installrc` above the package it installs. */
export const PREBUILD_RC = ".prebuild-installrc";

/**
 * Carries the better-sqlite3 module that `pnpm install` compiled into the command's stage, as
 * the prebuilt binary better-sqlite3's own install script (prebuild-install) looks for first:
 * `npm i -g` of the release with the same Node, platform and architecture then unpacks it,
 * loads it to check it, and neither downloads nor compiles. Any other Node gets the usual
 * download or build, and so does a binary that does not load there (prebuild-install then
 * fails and the script compiles).
 *
 * Carries nothing, saying why, when the workspace's module is missing or does not load in the
 * Node running the release (then it was built for another one).
 */
export function carryNativeModule(options: {
  /** A workspace package that depends on better-sqlite3. */
  from: string;
  /** The version the command depends on. */
  version: string;
  stage: string;
}): NativeModule {
  const requireFrom = createRequire(join(options.from, "package.json"));
  let manifestPath: string;
  try {
    manifestPath = requireFrom.resolve(`${NATIVE_MODULE}/package.json`);
  } catch {
    throw new Error(`${options.from} has no ${NATIVE_MODULE} installed: run pnpm install`);
  }
  const moduleDir = dirname(manifestPath);
  const { version } = JSON.parse(readFileSync(manifestPath, "utf8")) as { version: string };
  if (version !== options.version)
    throw new Error(
      `the command depends on ${NATIVE_MODULE} ${options.version}, the workspace has ${version} installed: run pnpm install`,
    );
  const binary = join(moduleDir, "build", "Release", "better_sqlite3.node");
  if (!existsSync(binary))
    return {
      carried: false,
      version,
      reason: `${binary} is missing (pnpm install did not run its install script)`,
    };
  const check = spawnSync(process.execPath, ["-e", LOADS, moduleDir], {
    encoding: "utf8",
    timeout: 60_000,
  });
  if (check.status !== 0)
    return {
      carried: false,
      version,
      reason: `the module pnpm install built does not load in Node ${process.version}: ${firstLine(check.stderr || String(check.error))}`,
    };
  const abi = process.versions.modules;
  const file = `${PREBUILDS}/${prebuildName(version, abi)}`;
  mkdirSync(join(options.stage, PREBUILDS), { recursive: true });
  writeFileSync(join(options.stage, file), prebuildTarball(readFileSync(binary)));
  writeFileSync(join(options.stage, PREBUILD_RC), PREBUILD_RC_TEXT);
  return {
    carried: true,
    version,
    file,
    node: process.version,
    abi,
    platform: process.platform,
    arch: process.arch,
  };
}

/**
 * prebuild-install's name for better-sqlite3's prebuilt binary for a Node ABI on this
 * platform and architecture (`-musl` after the platform on a Linux without glibc).
 */
export function prebuildName(version: string, abi: string): string {
  const libc = process.platform === "linux" && !glibc() ? "musl" : "";
  return `${NATIVE_MODULE}-v${version}-node-v${abi}-${process.platform}${libc}-${process.arch}.tar.gz`;
}

/** A prebuilt binary's tarball, as prebuild-install unpacks it into the package. */
export function prebuildTarball(binary: Buffer): Buffer {
  return tarGz([
    { path: "build/", mode: 0o755 },
    { path: "build/Release/", mode: 0o755 },
    { path: "build/Release/better_sqlite3.node", mode: 0o755, data: binary },
  ]);
}

// `node -e LOADS <folder>`: opens an in-memory database with the module in <folder>.
const LOADS = `const Database = require(process.argv[1]);
const db = new Database(":memory:");
db.prepare("select sqlite_version()").get();
db.close();`;

const PREBUILD_RC_TEXT = `; Written by toolledger's release. better-sqlite3's install script (prebuild-install) reads
; the nearest .prebuild-installrc above its folder (toolledger/node_modules/better-sqlite3)
; and looks for its prebuilt binary in this folder first: the one built for the Node that
; packed the release. It loads it to check it; another Node, or a binary that does not load,
; gets the usual download or build.
local-prebuilds=../../${PREBUILDS}
`;

function glibc(): boolean {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } };
  return typeof report?.header?.glibcVersionRuntime === "string";
}

function firstLine(text: string): string {
  return (
    text
      .split("\n")
      .map((l) => l.trim())
      .find((l) => /error/i.test(l)) ??
    text.trim().split("\n")[0] ??
    ""
  );
}
