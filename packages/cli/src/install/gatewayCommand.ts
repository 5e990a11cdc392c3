import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, delimiter, dirname, join, sep } from "node:path";

/** The command an agent host runs to start the gateway, and why it is that one. */
export interface GatewayCommand {
  command: string;
  /** Arguments before `serve …`. */
  args: string[];
  /** `installed`: the installed binary's stable path; `npx`: the registry package, major pinned; `given`: --command. */
  kind: "installed" | "npx" | "given";
  /** One line for the user: what was written and why. */
  why: string;
}

const BIN = process.platform === "win32" ? "toolledger.cmd" : "toolledger";

/**
 * What `install` writes into a host's config. A host keeps that entry across toolledger
 * upgrades and whatever the user moves, so it never names a file that an upgrade replaces or a
 * source checkout holds: the installed binary's stable path (npm's link, which
 * `npm i -g toolledger` updates in place), else `npx -y toolledger@<major>`.
 */
export function gatewayCommand(options: {
  /** This CLI's dist/main.js. */
  main: string;
  version: string;
  env: Readonly<Record<string, string | undefined>>;
}): GatewayCommand {
  const main = realpath(options.main);
  const root = dirname(dirname(main));
  const npx = npxCommand(options.version);
  const installed = installedPackage(root);
  if (installed === "checkout")
    return {
      ...npx,
      why: `${npx.why}: this toolledger runs from a source checkout (${root}), which may move or be deleted; install the package (npm i -g toolledger) and run install again to use it instead`,
    };
  if (installed === "npx-cache")
    return {
      ...npx,
      why: `${npx.why}: this toolledger runs from npx's cache, which npm clears`,
    };
  const bin = stableBin(root, main, options.env);
  if (bin === undefined)
    return {
      ...npx,
      why: `${npx.why}: no ${BIN} on your PATH or in npm's bin folder starts this installation (${root})`,
    };
  return {
    command: bin,
    args: [],
    kind: "installed",
    why: `${bin}, npm's link to the installed toolledger ${options.version}: \`npm i -g toolledger\` upgrades it in place and the host keeps working`,
  };
}

/** `npx -y toolledger@1` (for 0.x, `@0.<minor>`: there the minor is what breaks). */
export function npxCommand(version: string): GatewayCommand {
  const [major = "0", minor = "0"] = version.split(".");
  const range = major === "0" ? `0.${minor}` : major;
  return {
    command: "npx",
    args: ["-y", `toolledger@${range}`],
    kind: "npx",
    why: `npx -y toolledger@${range} (the latest ${range}.x from the npm registry, fetched on the host's first start)`,
  };
}

/** Whether `root` (the package folder holding dist/) is an npm installation, a checkout, or npx's cache. */
function installedPackage(root: string): "installed" | "checkout" | "npx-cache" {
  const parts = root.split(sep);
  if (parts.includes("_npx")) return "npx-cache";
  if (!parts.includes("node_modules")) return "checkout";
  try {
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      name?: string;
    };
    return manifest.name === "toolledger" ? "installed" : "checkout";
  } catch {
    return "checkout";
  }
}

/**
 * The path that starts this installation and stays put across upgrades: the first
 * `toolledger` on the PATH that resolves to this main.js, else npm's bin folder for a global
 * install (`<prefix>/bin` beside `<prefix>/lib/node_modules`), else a project's
 * `node_modules/.bin`.
 */
function stableBin(
  root: string,
  main: string,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const starts = (candidate: string) =>
    existsSync(candidate) && statSync(candidate).isFile() && startsMain(candidate, main, root);
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "" || !dir.startsWith(sep)) continue;
    const candidate = join(dir, BIN);
    if (starts(candidate)) return candidate;
  }
  const modules = dirname(root);
  const candidates = [
    // <prefix>/lib/node_modules/toolledger → <prefix>/bin/toolledger (Unix global)
    basename(dirname(modules)) === "lib" ? join(dirname(dirname(modules)), "bin", BIN) : "",
    // <prefix>/node_modules/toolledger → <prefix>/toolledger.cmd (Windows global)
    join(dirname(modules), BIN),
    // <project>/node_modules/toolledger → <project>/node_modules/.bin/toolledger
    join(modules, ".bin", BIN),
  ];
  return candidates.find((c) => c !== "" && starts(c));
}

/** A link to main.js, or npm's Windows shim that names it. */
function startsMain(candidate: string, main: string, root: string): boolean {
  if (realpath(candidate) === main) return true;
  if (!candidate.endsWith(".cmd")) return false;
  return readFileSync(candidate, "utf8").includes(join(basename(root), "dist", "main.js"));
}

function realpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
