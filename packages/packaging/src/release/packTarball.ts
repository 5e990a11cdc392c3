import { execFileSync } from "node:child_process";
import { join } from "node:path";

/** One tarball `npm pack` wrote, as npm describes it. */
export interface PackedTarball {
  name: string;
  version: string;
  /** The tarball's path. */
  file: string;
  /** Bytes of the .tgz. */
  size: number;
  /** Bytes once unpacked. */
  unpackedSize: number;
  /** Paths inside the package, bundled dependencies included. */
  files: string[];
  /** Bundled dependencies shipped inside the tarball. */
  bundled: string[];
}

/** `npm pack` of a staged folder into `out` (no lifecycle scripts: the folder is already built). */
export function packTarball(stage: string, out: string): PackedTarball {
  const json = execFileSync(
    npmCommand(),
    ["pack", "--json", "--ignore-scripts", "--pack-destination", out],
    {
      cwd: stage,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false" },
    },
  );
  const [packed] = JSON.parse(json) as {
    name: string;
    version: string;
    filename: string;
    size: number;
    unpackedSize: number;
    files: { path: string }[];
    bundled: string[];
  }[];
  if (!packed) throw new Error(`npm pack in ${stage} described no tarball: ${json}`);
  return {
    name: packed.name,
    version: packed.version,
    file: join(out, packed.filename),
    size: packed.size,
    unpackedSize: packed.unpackedSize,
    files: packed.files.map((f) => f.path).sort(),
    bundled: packed.bundled,
  };
}

/** npm beside this Node (the one `npm i -g` uses), else the first on PATH. */
export function npmCommand(): string {
  return process.platform === "win32" ? "npm.cmd" : "npm";
}
