/** A package.json as read (workspace) or written (published). */
export type Manifest = Record<string, unknown> & {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, unknown>;
  exports?: Record<string, unknown>;
  bin?: string | Record<string, string>;
};

/** What every published manifest shares. */
export interface ReleaseContext {
  /** The version stamped on every package (they are released together). */
  version: string;
  /** pnpm's default catalog (`pnpm-workspace.yaml`). */
  catalog: Readonly<Record<string, string>>;
  /** Published name of each workspace package, by workspace name. */
  names: Readonly<Record<string, string>>;
  repositoryUrl: string;
  engines: Readonly<Record<string, string>>;
}

export interface PublishOptions {
  /** Folder in the repository (`repository.directory`). */
  directory: string;
  /** Subpaths of `exports` that stay in the workspace (test kits). */
  unpublishedExports: readonly string[];
  /**
   * How registry dependencies are pinned: `caret` for libraries (a host dedupes them with its
   * own), `exact` for the command (the versions its tests ran with).
   */
  ranges: "caret" | "exact";
  /** Packages the shipped files import (see moduleClosure); peers nobody imports are dropped. */
  imported: ReadonlySet<string>;
  /** Dependencies to add (the command: its bundled libraries' registry dependencies). */
  extraDependencies?: Readonly<Record<string, string>>;
  /** Dependencies shipped inside the tarball (`bundleDependencies`). */
  bundle?: readonly string[];
  /** Top-level files and folders of the tarball besides package.json, README and LICENSE. */
  files: readonly string[];
}

const SOURCE_CONDITION = "@toolledger/source";
const CONDITION_ORDER = ["types", "import", "default"];

/**
 * The manifest npm publishes for a workspace package: versions resolved (no `workspace:` or
 * `catalog:`), development-only fields and source conditions gone, test-kit subpaths left out,
 * and the fields a registry user relies on (description, engines, repository, types) present.
 */
export function publishManifest(
  source: Manifest,
  options: PublishOptions,
  context: ReleaseContext,
): Manifest {
  const name = context.names[source.name] ?? source.name;
  if (typeof source.description !== "string" || source.description === "")
    throw new Error(`${source.name}: package.json needs a "description" to be published`);
  const exports = publishedExports(source, options.unpublishedExports);
  const root = exports?.["."] as Record<string, string> | undefined;
  const dependencies = {
    ...resolveAll(source.dependencies, source.name, options.ranges, context),
    ...options.extraDependencies,
  };
  const peers = Object.fromEntries(
    Object.entries(resolveAll(source.peerDependencies, source.name, "caret", context)).filter(
      ([peer]) => options.imported.has(peer),
    ),
  );
  const peerMeta = Object.fromEntries(
    Object.entries(source.peerDependenciesMeta ?? {}).filter(([peer]) => peer in peers),
  );
  const manifest: Manifest = {
    name,
    version: context.version,
    description: source.description,
    ...(Array.isArray(source.keywords) ? { keywords: source.keywords } : {}),
    license: source.license ?? "MIT",
    repository: { type: "git", url: context.repositoryUrl, directory: options.directory },
    type: "module",
    engines: { ...context.engines },
    ...(exports === undefined ? {} : { exports }),
    ...(root?.import ? { main: root.import } : {}),
    ...(root?.types ? { types: root.types } : {}),
    ...(source.bin === undefined ? {} : { bin: source.bin }),
    files: [...options.files],
    ...(Object.keys(dependencies).length > 0 ? { dependencies: sorted(dependencies) } : {}),
    ...(options.bundle && options.bundle.length > 0
      ? { bundleDependencies: [...options.bundle] }
      : {}),
    ...(Object.keys(peers).length > 0 ? { peerDependencies: sorted(peers) } : {}),
    ...(Object.keys(peerMeta).length > 0 ? { peerDependenciesMeta: peerMeta } : {}),
  };
  const left = JSON.stringify(manifest).match(/"(workspace|catalog):[^"]*"/);
  if (left) throw new Error(`${source.name}: ${left[0]} is left in the published manifest`);
  return manifest;
}

/**
 * One dependency's published range: `workspace:` → the release version (the packages are
 * released together), `catalog:` → the catalog's version, a caret added for libraries.
 */
export function resolveRange(
  dependency: string,
  range: string,
  owner: string,
  ranges: "caret" | "exact",
  context: ReleaseContext,
): string {
  if (range.startsWith("workspace:")) return context.version;
  let resolved = range;
  if (range === "catalog:" || range === "catalog:default") {
    const pinned = context.catalog[dependency];
    if (pinned === undefined)
      throw new Error(`${owner}: ${dependency} is "catalog:" but the catalog has no ${dependency}`);
    resolved = pinned;
  } else if (/^[a-z]+:/.test(range)) {
    throw new Error(`${owner}: ${dependency}@${range} cannot be published (a registry range only)`);
  }
  return ranges === "caret" && /^\d+\.\d+\.\d+$/.test(resolved) ? `^${resolved}` : resolved;
}

function resolveAll(
  deps: Record<string, string> | undefined,
  owner: string,
  ranges: "caret" | "exact",
  context: ReleaseContext,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [dep, range] of Object.entries(deps ?? {})) {
    out[context.names[dep] ?? dep] = resolveRange(dep, range, owner, ranges, context);
  }
  return out;
}

function publishedExports(
  source: Manifest,
  unpublished: readonly string[],
): Record<string, unknown> | undefined {
  if (source.exports === undefined) return undefined;
  const out: Record<string, unknown> = {};
  for (const [subpath, target] of Object.entries(source.exports)) {
    if (unpublished.includes(subpath)) continue;
    if (typeof target === "string") {
      out[subpath] = target;
      continue;
    }
    const conditions = Object.entries(target as Record<string, string>).filter(
      ([condition]) => condition !== SOURCE_CONDITION,
    );
    if (conditions.length === 0)
      throw new Error(`${source.name}: exports["${subpath}"] exists only in the sources`);
    const rank = (c: string) => {
      const i = CONDITION_ORDER.indexOf(c);
      return i === -1 ? CONDITION_ORDER.length : i;
    };
    conditions.sort(([a], [b]) => rank(a) - rank(b));
    if (conditions[0]![0] !== "types")
      throw new Error(`${source.name}: exports["${subpath}"] has no "types"`);
    out[subpath] = Object.fromEntries(conditions);
  }
  out["./package.json"] = "./package.json";
  return out;
}

function sorted(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
