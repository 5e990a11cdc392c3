import { existsSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, normalize, relative, sep } from "node:path";

/** What a set of entry files reach: the files to ship and the packages they import. */
export interface ModuleClosure {
  /** Paths relative to the package root, sorted. */
  files: string[];
  /** Package names imported by the shipped JavaScript (`zod`, `@modelcontextprotocol/sdk`). */
  runtimePackages: string[];
  /** Package names imported by the shipped declarations (their types must install too). */
  typePackages: string[];
  /** Node built-ins the shipped files import (`node:fs`). */
  builtins: string[];
}

// tsc's output is regular: a static import or re-export is a statement at the start of a line
// ending in `from "…"`, a side-effect import is `import "…"`, a dynamic one `import("…")`
// (also `import("…").Type` in declarations).
const SPECIFIERS = [
  /^(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"']+)["']/gm,
  /^import\s*["']([^"']+)["']/gm,
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
];

const BUILTINS = new Set(builtinModules);

/**
 * Follows relative imports from `entries` (paths relative to `root`, `.js` or `.d.ts`) through
 * the emitted files. A relative import that names no file is an error: a published package
 * must not import what it does not ship.
 */
export function moduleClosure(root: string, entries: readonly string[]): ModuleClosure {
  const files = new Set<string>();
  const runtime = new Set<string>();
  const types = new Set<string>();
  const builtins = new Set<string>();
  const queue = [...entries.map((e) => normalize(e))];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    const path = join(root, file);
    if (!existsSync(path)) throw new Error(`${path} does not exist (is the package built?)`);
    files.add(file);
    const declaration = file.endsWith(".d.ts");
    for (const specifier of importSpecifiers(readFileSync(path, "utf8"))) {
      if (specifier.startsWith("./") || specifier.startsWith("../")) {
        const target = relative(root, join(root, dirname(file), specifier));
        if (target.startsWith(`..${sep}`) || target === "..")
          throw new Error(`${path} imports ${specifier}, outside the package`);
        queue.push(declaration ? declarationOf(root, target, path, specifier) : target);
        continue;
      }
      if (specifier.startsWith("node:") || BUILTINS.has(specifier)) {
        builtins.add(specifier.replace(/^node:/, ""));
        continue;
      }
      (declaration ? types : runtime).add(packageName(specifier));
    }
  }
  return {
    files: [...files].sort(),
    runtimePackages: [...runtime].sort(),
    typePackages: [...types].sort(),
    builtins: [...builtins].sort(),
  };
}

/** The import specifiers of one emitted file, comments left out. */
export function importSpecifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const found = new Set<string>();
  for (const pattern of SPECIFIERS) for (const m of code.matchAll(pattern)) found.add(m[1]!);
  return [...found];
}

/** `@scope/name/sub/path.js` → `@scope/name`; `name/sub` → `name`. */
export function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

function declarationOf(root: string, target: string, from: string, specifier: string): string {
  const candidates = [
    target.replace(/\.js$/, ".d.ts"),
    target.replace(/\.mjs$/, ".d.mts"),
    `${target}.d.ts`,
    join(target, "index.d.ts"),
  ];
  const found = candidates.find((c) => c.endsWith(".d.ts") && existsSync(join(root, c)));
  if (found === undefined) throw new Error(`${from} imports ${specifier}: no declaration file`);
  return found;
}
