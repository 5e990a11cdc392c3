import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importSpecifiers, moduleClosure } from "./moduleClosure.js";
import { type Manifest, publishManifest, type ReleaseContext } from "./publishManifest.js";

const context: ReleaseContext = {
  version: "1.2.3",
  catalog: { zod: "4.6.7", "@types/node": "^20.19.0" },
  names: { "@toolledger/cli": "toolledger", "@toolledger/core": "@toolledger/core" },
  repositoryUrl: "git+https://example.test/toolledger.git",
  engines: { node: "^20.19.0 || ^22.12.0 || ^24.0.0 || ^26.0.0" },
};

const source: Manifest = {
  name: "@toolledger/core",
  version: "0.0.0",
  description: "the core",
  type: "module",
  exports: {
    ".": {
      "@toolledger/source": "./src/index.ts",
      import: "./dist/index.js",
      types: "./dist/index.d.ts",
    },
    "./testing": { types: "./testing/dist/index.d.ts", import: "./testing/dist/index.js" },
  },
  dependencies: { zod: "catalog:", "@toolledger/cli": "workspace:*" },
  devDependencies: { vitest: "catalog:" },
  peerDependencies: { vitest: "4.1.12" },
  scripts: { build: "tsc -b" },
};

describe("publishManifest", () => {
  it("resolves workspace: and catalog:, drops source conditions, test kits, scripts and dev dependencies", () => {
    const published = publishManifest(
      source,
      {
        directory: "packages/core",
        unpublishedExports: ["./testing"],
        ranges: "caret",
        imported: new Set(["zod"]),
        files: ["dist"],
      },
      context,
    );
    expect(published).toEqual({
      name: "@toolledger/core",
      version: "1.2.3",
      description: "the core",
      license: "MIT",
      repository: {
        type: "git",
        url: "git+https://example.test/toolledger.git",
        directory: "packages/core",
      },
      type: "module",
      engines: { node: "^20.19.0 || ^22.12.0 || ^24.0.0 || ^26.0.0" },
      exports: {
        ".": { types: "./dist/index.d.ts", import: "./dist/index.js" },
        "./package.json": "./package.json",
      },
      main: "./dist/index.js",
      types: "./dist/index.d.ts",
      files: ["dist"],
      dependencies: { toolledger: "1.2.3", zod: "^4.6.7" },
    });
    // The peer only the test kit imported is gone with it.
    expect(JSON.stringify(published)).not.toMatch(/workspace:|catalog:|vitest|@toolledger\/source/);
  });

  it("the command pins exact versions; a range in the catalog stays a range", () => {
    const published = publishManifest(
      { ...source, dependencies: { zod: "catalog:", "@types/node": "catalog:" } },
      {
        directory: "packages/cli",
        unpublishedExports: ["./testing"],
        ranges: "exact",
        imported: new Set(),
        files: ["dist"],
      },
      context,
    );
    expect(published.dependencies).toEqual({ "@types/node": "^20.19.0", zod: "4.6.7" });
  });

  it("refuses what cannot be published: no description, an unknown catalog entry, a link:, exports without types", () => {
    const options = {
      directory: "d",
      unpublishedExports: [],
      ranges: "caret" as const,
      imported: new Set<string>(),
      files: [],
    };
    expect(() => publishManifest({ ...source, description: "" }, options, context)).toThrow(
      'needs a "description"',
    );
    expect(() =>
      publishManifest(
        { ...source, exports: {}, dependencies: { nope: "catalog:" } },
        options,
        context,
      ),
    ).toThrow("the catalog has no nope");
    expect(() =>
      publishManifest(
        { ...source, exports: {}, dependencies: { x: "link:../x" } },
        options,
        context,
      ),
    ).toThrow("cannot be published");
    expect(() =>
      publishManifest(
        { ...source, exports: { ".": { import: "./dist/index.js" } } },
        options,
        context,
      ),
    ).toThrow('has no "types"');
  });
});

describe("moduleClosure", () => {
  it("follows relative imports of JavaScript and declarations, and names the packages each needs", () => {
    const root = mkdtempSync(join(tmpdir(), "toolledger-closure-"));
    mkdirSync(join(root, "dist", "commands"), { recursive: true });
    const file = (path: string, text: string) => writeFileSync(join(root, path), text);
    file(
      "dist/index.js",
      'import { a } from "./a.js";\nexport { b } from "./b.js";\nconst help = "read from \\"x\\"";\n',
    );
    file(
      "dist/a.js",
      'import { z } from "zod";\nimport fs from "node:fs";\nexport const a = () => import("./commands/late.js");\n',
    );
    file(
      "dist/b.js",
      'import {\n  type X,\n  y,\n} from "@modelcontextprotocol/sdk/client/index.js";\nexport const b = y;\n',
    );
    file("dist/commands/late.js", "export {};\n");
    file("dist/unused.js", "export {};\n");
    file("dist/index.d.ts", 'export { a } from "./a.js";\nexport type T = import("./b.js").B;\n');
    file(
      "dist/a.d.ts",
      'import type Database from "better-sqlite3";\nexport declare const a: Database;\n',
    );
    file("dist/b.d.ts", "export type B = 1;\n");
    const closure = moduleClosure(root, ["dist/index.js", "dist/index.d.ts"]);
    expect(closure.files).toEqual([
      "dist/a.d.ts",
      "dist/a.js",
      "dist/b.d.ts",
      "dist/b.js",
      "dist/commands/late.js",
      "dist/index.d.ts",
      "dist/index.js",
    ]);
    expect(closure.runtimePackages).toEqual(["@modelcontextprotocol/sdk", "zod"]);
    expect(closure.typePackages).toEqual(["better-sqlite3"]);
    expect(closure.builtins).toEqual(["fs"]);
  });

  it("a relative import of a file that does not exist is an error", () => {
    const root = mkdtempSync(join(tmpdir(), "toolledger-closure-"));
    mkdirSync(join(root, "dist"));
    writeFileSync(join(root, "dist", "index.js"), 'import "./gone.js";\n');
    expect(() => moduleClosure(root, ["dist/index.js"])).toThrow("gone.js does not exist");
  });

  it("reads specifiers from statements, not from strings or comments", () => {
    expect(
      importSpecifiers('// import x from "a";\nconst s = "from \\"b\\"";\nimport c from "c";\n'),
    ).toEqual(["c"]);
  });
});
