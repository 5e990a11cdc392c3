import { dirname, relative, sep } from "node:path";

/** Why better-sqlite3's native module did not load (as `checkNativeModule` tells them apart). */
export type NativeModuleProblem = "missing" | "wrong_node" | "load_failed";

export function nativeModuleProblem(message: string): NativeModuleProblem {
  if (/NODE_MODULE_VERSION/.test(message)) return "wrong_node";
  if (/Could not locate the bindings file|Cannot find module/.test(message)) return "missing";
  return "load_failed";
}

/** The paths the `bindings` loader lists after `Tried:`, one `→ <path>` a line. */
function triedPaths(message: string): string[] {
  return [...message.matchAll(/^\s*→\s*(\S.*?)\s*$/gm)].map((m) => m[1]!);
}

/** better-sqlite3's folder, read off the loader's message (where a rebuild runs), or null. */
export function driverDirOf(message: string): string | null {
  const tried = triedPaths(message);
  const file = tried[0] ?? /'([^']*better_sqlite3\.node)'/.exec(message)?.[1];
  if (file === undefined) return null;
  const at = file.lastIndexOf(`${sep}better-sqlite3${sep}`);
  if (at !== -1) return file.slice(0, at + `${sep}better-sqlite3`.length);
  return tried.length > 0 ? commonDir(tried) : dirname(file);
}

/**
 * The loader's message in one line that says what was tried: `bindings` ends its first line
 * at "Tried:" and lists a dozen paths below it.
 */
export function describeLoadError(message: string): string {
  const tried = triedPaths(message);
  const versions = [...message.matchAll(/NODE_MODULE_VERSION (\d+)/g)].map((m) => m[1]);
  const file = /'([^']*better_sqlite3\.node)'/.exec(message)?.[1];
  if (versions.length === 2 && file !== undefined)
    return `${file} was built for another Node (NODE_MODULE_VERSION ${versions[0]}; this Node ${process.versions.node} needs ${versions[1]})`;
  // Node's own messages wrap over several lines: one line, nothing cut.
  if (tried.length === 0) return message.replace(/\s*\n\s*/g, " ").trim();
  const root = driverDirOf(message) ?? commonDir(tried);
  const shown = tried.slice(0, 3).map((p) => relative(root, p));
  return `no compiled better_sqlite3.node: looked for it in ${tried.length} places in ${root} (${shown.join(", ")}${tried.length > shown.length ? `, and ${tried.length - shown.length} more` : ""}), found none`;
}

/** What to do about it, for this problem and installation (a source checkout is told pnpm's way). */
export function nativeModuleFix(problem: NativeModuleProblem, dir: string | null): string {
  if (dir?.includes(`${sep}.pnpm${sep}`))
    return "in this source checkout: pnpm rebuild better-sqlite3 (offline, with npm_config_nodedir set to Node's headers, e.g. /usr)";
  const where = dir ? `cd ${dir} && ` : "";
  const build = `${where}npm run build-release (needs python3, make and a C++ compiler; offline, set npm_config_nodedir to Node's headers, e.g. /usr with Debian's nodejs)`;
  return problem === "wrong_node"
    ? `it was built for another Node version: rebuild it for this one: ${build}`
    : problem === "missing"
      ? `its install script was skipped or failed (npm's allow-scripts, --ignore-scripts, or no network for the prebuilt binary): reinstall with npm i -g toolledger --allow-scripts=better-sqlite3, or build it: ${build}`
      : `rebuild it: ${build}`;
}

function commonDir(paths: readonly string[]): string {
  let common = dirname(paths[0]!);
  while (!paths.every((p) => p.startsWith(`${common}${sep}`)) && dirname(common) !== common)
    common = dirname(common);
  return common;
}
