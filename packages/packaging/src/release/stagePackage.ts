import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Manifest } from "./publishManifest.js";

const ALWAYS_SHIPPED = new Set(["package.json", "README.md", "LICENSE", "node_modules"]);

/**
 * Writes one package's publishable folder: the shipped files (without their source-map
 * comments: neither maps nor sources are shipped), the assets, README, LICENSE and manifest.
 */
export function stagePackage(options: {
  stage: string;
  packageDir: string;
  files: readonly string[];
  assets: readonly { from: string; to: string }[];
  readme: string;
  license: string;
  manifest: Manifest;
}): void {
  mkdirSync(options.stage, { recursive: true });
  for (const file of options.files) {
    const target = join(options.stage, file);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(
      target,
      withoutSourceMapComment(readFileSync(join(options.packageDir, file), "utf8")),
    );
  }
  for (const asset of options.assets) {
    if (!existsSync(asset.from))
      throw new Error(`${asset.from} does not exist (is the package built?)`);
    const target = join(options.stage, asset.to);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(asset.from, target);
  }
  copyFileSync(options.readme, join(options.stage, "README.md"));
  copyFileSync(options.license, join(options.stage, "LICENSE"));
  writeFileSync(
    join(options.stage, "package.json"),
    `${JSON.stringify(options.manifest, null, 2)}\n`,
  );
}

/** The `files` of a manifest: the top-level names of the shipped paths npm does not add itself. */
export function topLevelEntries(paths: readonly string[]): string[] {
  const names = new Set(paths.map((p) => p.split(/[\\/]/)[0]!));
  return [...names].filter((name) => !ALWAYS_SHIPPED.has(name)).sort();
}

export function withoutSourceMapComment(text: string): string {
  return text.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");
}
