import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { moduleClosure } from "./moduleClosure.js";
import {
  carryNativeModule,
  NATIVE_MODULE,
  type NativeModule,
  PREBUILD_RC,
} from "./nativeModule.js";
import { type PackedTarball, packTarball } from "./packTarball.js";
import {
  type Manifest,
  publishManifest,
  type ReleaseContext,
  resolveRange,
} from "./publishManifest.js";
import { COMMAND_NAME, RELEASED_PACKAGES, type ReleasedPackage } from "./releasePlan.js";
import { stagePackage, topLevelEntries } from "./stagePackage.js";

export interface ReleaseResult {
  version: string;
  out: string;
  tarballs: (PackedTarball & { kind: ReleasedPackage["kind"] })[];
  /** What the command carries of better-sqlite3's compiled module (see carryNativeModule). */
  nativeModule?: NativeModule;
}

/**
 * Writes the release into `out`: one tarball per library and one for the command, from the
 * built workspace (`pnpm build` first). `out` is emptied of earlier tarballs first.
 */
export function buildRelease(options: {
  root: string;
  out: string;
  /** Stamped on every package instead of the workspace's version (a pre-release, a test). */
  version?: string;
  /**
   * Whether the command carries the better-sqlite3 module `pnpm install` compiled, for `npm i -g`
   * with the same Node (default true). Off for a release published to the registry, whose
   * users get better-sqlite3's own prebuilt binaries.
   */
  nativeModule?: boolean;
}): ReleaseResult {
  const root = resolve(options.root);
  const out = resolve(options.out);
  const rootManifest = readJson(join(root, "package.json"));
  const sources = RELEASED_PACKAGES.map((p) => readJson(join(root, p.dir, "package.json")));
  const versions = new Set(sources.map((m) => m.version));
  if (options.version === undefined && versions.size !== 1)
    throw new Error(
      `the released packages have different versions (${[...versions].join(", ")}); they are released together`,
    );
  const repository = rootManifest.repository as { url?: string } | undefined;
  if (!repository?.url) throw new Error(`${root}/package.json needs "repository": { "url": … }`);
  const context: ReleaseContext = {
    version: options.version ?? sources[0]!.version,
    catalog: readCatalog(root),
    names: Object.fromEntries(
      RELEASED_PACKAGES.map((p, i) => [
        sources[i]!.name,
        p.kind === "command" ? COMMAND_NAME : sources[i]!.name,
      ]),
    ),
    repositoryUrl: repository.url,
    engines: (rootManifest.engines as Record<string, string> | undefined) ?? {},
  };

  const stageRoot = mkdtempSync(join(tmpdir(), "toolledger-release-"));
  try {
    mkdirSync(out, { recursive: true });
    for (const name of readdirTarballs(out)) rmSync(join(out, name));
    const staged = new Map<string, { stage: string; exact: Record<string, string> }>();
    const tarballs: ReleaseResult["tarballs"] = [];
    let nativeModule: NativeModule | undefined;
    for (const [i, plan] of RELEASED_PACKAGES.entries()) {
      const source = sources[i]!;
      const packageDir = join(root, plan.dir);
      const closure = moduleClosure(packageDir, entryFiles(source, plan));
      const declared = new Set([
        ...Object.keys(source.dependencies ?? {}),
        ...Object.keys(source.peerDependencies ?? {}),
      ]);
      const undeclared = closure.runtimePackages.filter(
        (p) => !declared.has(p) && p !== source.name,
      );
      if (undeclared.length > 0)
        throw new Error(
          `${source.name} imports ${undeclared.join(", ")} without declaring them in "dependencies"`,
        );
      const typeDependencies = typingsFor(closure.typePackages, source, packageDir, context);
      const published = (ranges: "caret" | "exact") => ({
        ...registryOnly(resolveAll(source.dependencies, source.name, ranges, context)),
        ...typeDependencies(ranges),
      });
      const bundled = plan.kind === "command" ? [...staged.keys()] : [];
      const extra =
        plan.kind === "command"
          ? mergeDependencies(source.name, [
              ...[...staged.values()].map((s) => s.exact),
              published("exact"),
            ])
          : typeDependencies("caret");
      const stage = join(stageRoot, (context.names[source.name] ?? source.name).replace("/", "+"));
      const carried: string[] = [];
      const nativeVersion = extra[NATIVE_MODULE];
      if (plan.kind === "command" && options.nativeModule !== false && nativeVersion) {
        // The library that depends on it, where pnpm installed and built it.
        const owner = RELEASED_PACKAGES.find((_, j) => sources[j]!.dependencies?.[NATIVE_MODULE]);
        nativeModule = carryNativeModule({
          from: join(root, owner?.dir ?? plan.dir),
          version: nativeVersion,
          stage,
        });
        if (nativeModule.carried) carried.push(nativeModule.file, PREBUILD_RC);
      }
      const shipped = [...closure.files, ...plan.assets.map((a) => a.to), ...carried];
      const manifest = publishManifest(
        source,
        {
          directory: plan.dir,
          unpublishedExports: plan.unpublishedExports,
          ranges: plan.kind === "command" ? "exact" : "caret",
          imported: new Set([...closure.runtimePackages, ...closure.typePackages]),
          extraDependencies: extra,
          bundle: bundled,
          files: topLevelEntries(shipped),
        },
        context,
      );
      stagePackage({
        stage,
        packageDir,
        files: closure.files,
        assets: plan.assets.map((a) => ({ from: join(root, a.from), to: a.to })),
        readme: join(packageDir, "README.md"),
        license: join(root, "LICENSE"),
        manifest,
      });
      for (const name of bundled)
        bundleLibrary(staged.get(name)!.stage, join(stage, "node_modules", name));
      if (plan.kind === "library") staged.set(manifest.name, { stage, exact: published("exact") });
      tarballs.push({ ...packTarball(stage, out), kind: plan.kind });
    }
    return {
      version: context.version,
      out,
      tarballs,
      ...(nativeModule ? { nativeModule } : {}),
    };
  } finally {
    rmSync(stageRoot, { recursive: true, force: true });
  }
}

/**
 * A library inside the command's tarball, its manifest without dependencies: the command
 * lists them (one version each), and npm treats a bundled package's own dependencies as part
 * of the bundle, so it would neither link their bins nor run their install scripts
 * (better-sqlite3's native build).
 */
function bundleLibrary(stage: string, target: string): void {
  cpSync(stage, target, { recursive: true });
  const manifest = readJson(join(target, "package.json"));
  delete manifest.dependencies;
  delete manifest.peerDependencies;
  delete manifest.peerDependenciesMeta;
  writeFileSync(join(target, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The built files a package's published `exports`, `bin` and started scripts name. */
export function entryFiles(source: Manifest, plan: ReleasedPackage): string[] {
  const entries: string[] = [...plan.scripts];
  for (const [subpath, target] of Object.entries(source.exports ?? {})) {
    if (plan.unpublishedExports.includes(subpath)) continue;
    const targets =
      typeof target === "string"
        ? [target]
        : Object.entries(target as Record<string, string>)
            .filter(([condition]) => condition !== "@toolledger/source")
            .map(([, t]) => t);
    for (const t of targets) {
      if (t.includes("*"))
        throw new Error(`${source.name}: exports["${subpath}"] is a pattern; list its files`);
      entries.push(t.replace(/^\.\//, ""));
    }
  }
  const bins = typeof source.bin === "string" ? [source.bin] : Object.values(source.bin ?? {});
  for (const bin of bins) entries.push(bin.replace(/^\.\//, ""));
  return entries;
}

/**
 * Declaration files that import a package without types of its own (better-sqlite3) need its
 * `@types/` package installed with them: it moves from devDependencies to dependencies.
 */
function typingsFor(
  typePackages: readonly string[],
  source: Manifest,
  packageDir: string,
  context: ReleaseContext,
): (ranges: "caret" | "exact") => Record<string, string> {
  const needed: string[] = [];
  for (const name of typePackages) {
    if (name === source.name || name in context.names) continue;
    if (hasOwnTypes(packageDir, name)) {
      if (!(name in (source.dependencies ?? {})) && !(name in (source.peerDependencies ?? {})))
        throw new Error(`${source.name}'s declarations import ${name}, which is not a dependency`);
      continue;
    }
    const typings = `@types/${name.replace(/^@([^/]+)\//, "$1__")}`;
    if (!(typings in (source.devDependencies ?? {})) && !(typings in (source.dependencies ?? {})))
      throw new Error(
        `${source.name}'s declarations import ${name}, which has no types: add ${typings}`,
      );
    needed.push(typings);
  }
  return (ranges) =>
    Object.fromEntries(
      needed.map((t) => [
        t,
        resolveRange(
          t,
          source.devDependencies?.[t] ?? source.dependencies![t]!,
          source.name,
          ranges,
          context,
        ),
      ]),
    );
}

function hasOwnTypes(packageDir: string, name: string): boolean {
  const manifestPath = join(packageDir, "node_modules", name, "package.json");
  if (!existsSync(manifestPath)) throw new Error(`${manifestPath} is missing: run pnpm install`);
  const manifest = readJson(manifestPath);
  return (
    typeof manifest.types === "string" ||
    typeof manifest.typings === "string" ||
    JSON.stringify(manifest.exports ?? {}).includes('"types"')
  );
}

function resolveAll(
  deps: Record<string, string> | undefined,
  owner: string,
  ranges: "caret" | "exact",
  context: ReleaseContext,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(deps ?? {}).map(([d, r]) => [d, resolveRange(d, r, owner, ranges, context)]),
  );
}

function registryOnly(deps: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(deps).filter(([d]) => !d.startsWith("@toolledger/")));
}

/** One version per dependency across the command and its bundled libraries. */
function mergeDependencies(
  owner: string,
  sets: readonly Record<string, string>[],
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const set of sets) {
    for (const [dep, version] of Object.entries(set)) {
      if (merged[dep] !== undefined && merged[dep] !== version)
        throw new Error(`${owner}: ${dep} is wanted at ${merged[dep]} and at ${version}`);
      merged[dep] = version;
    }
  }
  return merged;
}

function readCatalog(root: string): Record<string, string> {
  const workspace = parse(readFileSync(join(root, "pnpm-workspace.yaml"), "utf8")) as {
    catalog?: Record<string, string>;
  };
  return workspace.catalog ?? {};
}

function readJson(path: string): Manifest {
  return JSON.parse(readFileSync(path, "utf8")) as Manifest;
}

function readdirTarballs(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith(".tgz")) : [];
}
