import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ReleaseResult } from "../src/release/buildRelease.js";
import { prebuildName, prebuildTarball } from "../src/release/nativeModule.js";
import type { PackedTarball } from "../src/release/packTarball.js";

export const REPO = fileURLToPath(new URL("../../..", import.meta.url));

export function tempDir(name: string): string {
  return mkdtempSync(join(tmpdir(), `toolledger-${name}-`));
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion (no shell), with a clean environment as given. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command} ${args.join(" ")} did not finish\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 300_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * npm as a new user runs it, but offline: packages come from the tarballs and npm's cache
 * only (no registry), no user or global npmrc (so no nodedir: a compile could not fetch
 * Node's headers). better-sqlite3's native module comes from the command's tarball, which
 * carries the one `pnpm install` built; elsewhere (the libraries' project, another Node) from
 * `prebuilds`, a folder of prebuilt binaries as prebuild-install's download would give them
 * (its `local_prebuilds`), since compiling again would take minutes per install.
 */
export function offlineNpmEnv(dir: string, prebuilds?: string): Record<string, string> {
  const userconfig = join(dir, "npmrc");
  writeFileSync(userconfig, "");
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(dir, "home"),
    npm_config_cache: npmCache(),
    npm_config_userconfig: userconfig,
    npm_config_globalconfig: join(dir, "no-global-npmrc"),
    npm_config_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    ...(prebuilds ? { npm_config_better_sqlite3_local_prebuilds: prebuilds } : {}),
  };
}

let cache: string | undefined;
/** The npm cache of the user running the tests (what `npm i` on this machine has fetched). */
function npmCache(): string {
  cache ??= execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).trim();
  return cache;
}

/** An npm command that must succeed; a package missing from npm's cache says how to fill it. */
export async function npm(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<Run> {
  const r = await run("npm", args, { ...options, timeoutMs: 600_000 });
  if (r.code === 0) return r;
  const missing = /request to (\S+) failed: cache mode is 'only-if-cached'/.exec(r.stderr)?.[1];
  if (missing)
    throw new Error(
      `npm ${args.join(" ")}: npm's cache (${options.env.npm_config_cache}) lacks ${missing}. This test installs offline, from npm's cache: fill it once with the registry reachable, e.g. by the README's first command, or: npm i -g --prefix "$(mktemp -d)" --ignore-scripts ./release/toolledger-*.tgz`,
    );
  throw new Error(`npm ${args.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
}

/** The better-sqlite3 module the workspace built (`pnpm install`), and its version. */
export function workspaceModule(): { dir: string; binary: string; version: string } {
  const storeSqlite = createRequire(join(REPO, "packages", "store-sqlite", "package.json"));
  const manifest = storeSqlite.resolve("better-sqlite3/package.json");
  const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
  const dir = dirname(manifest);
  return { dir, binary: join(dir, "build", "Release", "better_sqlite3.node"), version };
}

/**
 * A folder with better-sqlite3's prebuilt binary for this Node, named as prebuild-install
 * looks for it, made from the module the workspace built.
 */
export function localPrebuild(dir: string): { dir: string; version: string } {
  const { binary, version } = workspaceModule();
  const out = join(dir, "prebuilds");
  mkdirSync(out, { recursive: true });
  writeFileSync(
    join(out, prebuildName(version, process.versions.modules)),
    prebuildTarball(readFileSync(binary)),
  );
  return { dir: out, version };
}

/** Unpacks a tarball into a new folder; returns the package folder. */
export function unpack(tarball: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  execFileSync("tar", ["xzf", tarball, "-C", dir]);
  return join(dir, "package");
}

/** The release tool (`pnpm release` after its build) into `to`, as JSON. */
export async function packRelease(
  to: string,
  extra: readonly string[] = [],
): Promise<ReleaseResult> {
  const tool = join(REPO, "packages", "packaging", "dist", "main.js");
  const r = await run(process.execPath, [tool, "--out", to, "--json", ...extra], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir() },
  });
  if (r.code !== 0) throw new Error(`the release tool exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as ReleaseResult;
}

export const commandTarball = (result: ReleaseResult): PackedTarball =>
  result.tarballs.find((t) => t.kind === "command")!;
export const libraries = (result: ReleaseResult): PackedTarball[] =>
  result.tarballs.filter((t) => t.kind === "library");
