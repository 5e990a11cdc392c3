import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { vi } from "vitest";

export interface ReadmeExample {
  /** What the example printed with console.log, in order. */
  logged: unknown[];
  /** The values its `// → <json>` comments promise, in order. */
  expected: unknown[];
  /** The example's source as run (after replacements). */
  code: string;
}

/**
 * Runs the first ```ts block under `heading` of a package README as a module (package
 * imports replaced with file URLs), capturing what it prints, so README examples are tests.
 */
export async function runReadmeExample(options: {
  readme: string;
  heading: string;
  /** [text, replacement] pairs, e.g. a package import → its source file URL. */
  replacements: readonly (readonly [string, string])[];
  /** A scratch folder inside the package (so its node_modules resolve). */
  tmpDir: string;
}): Promise<ReadmeExample> {
  const text = readFileSync(options.readme, "utf8");
  const block = text.match(
    new RegExp(`## ${options.heading}[\\s\\S]*?\`\`\`ts\\n([\\s\\S]*?)\`\`\``),
  )?.[1];
  if (block === undefined)
    throw new Error(`${options.readme} has no ts block under ## ${options.heading}`);
  let code = block;
  for (const [from, to] of options.replacements) code = code.replace(from, to);
  const expected = [...code.matchAll(/\/\/ → (.*)$/gm)].map((m) => JSON.parse(m[1]!) as unknown);
  mkdirSync(options.tmpDir, { recursive: true });
  const file = join(options.tmpDir, "example.ts");
  writeFileSync(file, code);
  const logged: unknown[] = [];
  const spy = vi
    .spyOn(console, "log")
    .mockImplementation((value: unknown) => void logged.push(value));
  try {
    await import(pathToFileURL(file).href);
  } finally {
    spy.mockRestore();
  }
  return { logged, expected, code };
}

/** A file URL literal for an import specifier. */
export function fileUrlLiteral(path: string): string {
  return JSON.stringify(pathToFileURL(path).href);
}
