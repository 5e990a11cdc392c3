import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { chromiumSkipReason, launchChromium } from "../../../cli/testing/chromium.js";
import {
  commandTarball,
  libraries,
  localPrebuild,
  npm,
  offlineNpmEnv,
  packRelease,
  REPO,
  run,
  tempDir,
  unpack,
} from "../../testing/freshInstall.js";
import type { ReleaseResult } from "./buildRelease.js";

// Issue 25: the libraries as a host that embeds them gets them. The release tool packs
// everything; the four library tarballs are installed together into an empty project with
// plain npm, offline (the tarballs and npm's cache); the core's README example is type-checked
// by tsc and run in Node ESM, the four are used together, and an esbuild browser bundle of
// the core folds the example in Chromium (E5).

// npm installs, packs and processes on a shared two-core machine: minutes, not seconds.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 900_000 });

const dir = tempDir("release-libraries");
let release: ReleaseResult;
let npmEnv: Record<string, string>;

beforeAll(async () => {
  release = await packRelease(join(dir, "release"));
  npmEnv = offlineNpmEnv(dir, localPrebuild(dir).dir);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The package.json fields store-sqlite's README gives under "Installing", as written. */
function storeSqliteInstalling(): Record<string, unknown> {
  const readme = readFileSync(join(REPO, "packages", "store-sqlite", "README.md"), "utf8");
  const block = /## Installing[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined)
    throw new Error("packages/store-sqlite/README.md has no ```json block under ## Installing");
  const fields = JSON.parse(block) as Record<string, unknown>;
  expect(fields).toEqual({ allowScripts: { "better-sqlite3": true } });
  return fields;
}

describe("the libraries, installed together into an empty project with npm, offline", () => {
  const project = join(dir, "consumer");
  let example: string;
  let expected: unknown[];

  beforeAll(async () => {
    mkdirSync(project, { recursive: true });
    const commandManifest = join(
      unpack(commandTarball(release).file, join(dir, "command")),
      "package.json",
    );
    const command = JSON.parse(readFileSync(commandManifest, "utf8")) as {
      dependencies: Record<string, string>;
    };
    const pins = Object.fromEntries(
      Object.entries(command.dependencies).filter(([d]) => !d.startsWith("@toolledger/")),
    );
    // The libraries' registry ranges held at the versions this release was tested with (what
    // npm's offline cache has): a consumer pins with `overrides` the same way.
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify(
        {
          name: "consumer",
          private: true,
          type: "module",
          overrides: pins,
          // npm 11 runs a dependency's install script only when the project allows it: as
          // store-sqlite's README tells its users (issue 34, point 12).
          ...storeSqliteInstalling(),
        },
        null,
        2,
      ),
    );
    await npm(["install", ...libraries(release).map((t) => t.file)], { cwd: project, env: npmEnv });
    // The core README's embedding example, as written.
    const readme = readFileSync(join(REPO, "packages", "core", "README.md"), "utf8");
    example = /## Embedding[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)![1]!;
    expected = [...example.matchAll(/\/\/ → (.*)$/gm)].map((m) => JSON.parse(m[1]!) as unknown);
    writeFileSync(join(project, "example.ts"), example);
  });

  test("the core in Node ESM, its types checked by tsc (strict, NodeNext)", async () => {
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          types: [],
          outDir: "out",
        },
        files: ["example.ts"],
      }),
    );
    const tsc = createRequire(join(REPO, "package.json")).resolve("typescript/bin/tsc");
    const compiled = await run(process.execPath, [tsc, "-p", "tsconfig.json"], {
      cwd: project,
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(compiled.code, compiled.stdout + compiled.stderr).toBe(0);
    // console.log as JSON lines, to compare with the example's `// →` comments.
    writeFileSync(
      join(project, "json-log.mjs"),
      'console.log = (v) => process.stdout.write(JSON.stringify(v) + "\\n");\n',
    );
    const r = await run(process.execPath, ["--import", "./json-log.mjs", "out/example.js"], {
      cwd: project,
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual(expected);
    // A type error in the consumer's use is caught against the shipped declarations.
    writeFileSync(
      join(project, "wrong.ts"),
      'import { decide, initialState } from "@toolledger/core";\ndecide(initialState(), { type: "EnableTools", names: "not-a-list" });\n',
    );
    writeFileSync(
      join(project, "tsconfig.wrong.json"),
      JSON.stringify({
        extends: "./tsconfig.json",
        compilerOptions: { noEmit: true },
        files: ["wrong.ts"],
      }),
    );
    const wrong = await run(process.execPath, [tsc, "-p", "tsconfig.wrong.json"], {
      cwd: project,
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toContain("wrong.ts(2,");
  });

  test("the four libraries together in Node: a SQLite store, the PostgreSQL URL check, the example servers through the adapters", async () => {
    const script = [
      'import { decide, initialState } from "@toolledger/core";',
      'import { openSqliteEventStore } from "@toolledger/store-sqlite";',
      'import { isPostgresUrl } from "@toolledger/store-postgres/url";',
      'import { ExtensionConnection, exampleServers, fetchTools } from "@toolledger/adapters-mcp";',
      'const d = decide(initialState(), { type: "AddExtension", name: "notes", kind: "stdio", configFingerprint: "fp" });',
      'const store = openSqliteEventStore("consumer.db");',
      'await store.append("s", d.events.map((event, i) => ({ eventId: "e" + i, event })));',
      'const stored = (await store.readStream("s")).map((e) => e.event.type);',
      "await store.close();",
      "const [notes] = exampleServers();",
      "const c = await ExtensionConnection.connect(notes, { connectTimeoutMs: 60000 });",
      "const tools = (await fetchTools(c, { requestTimeoutMs: 30000, maxPages: 2 })).tools.map((t) => t.name);",
      "await c.close();",
      'console.log(JSON.stringify({ stored, postgres: isPostgresUrl("postgres://h/db"), tools }));',
    ].join("\n");
    writeFileSync(join(project, "together.mjs"), script);
    const r = await run(process.execPath, ["together.mjs"], {
      cwd: project,
      env: { PATH: process.env.PATH ?? "" },
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      stored: ["ExtensionAdded"],
      postgres: true,
      tools: expect.arrayContaining(["add_note", "search_notes"]),
    });
  });

  test("E5: an esbuild browser bundle of the core folds the example in Chromium", async (context) => {
    if (chromiumSkipReason() !== null) return context.skip();
    const { build } = await import("esbuild");
    const bundled = await build({
      entryPoints: [join(project, "example.ts")],
      absWorkingDir: project,
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      logLevel: "silent",
    });
    const code = bundled.outputFiles[0]!.text;
    expect(code).not.toMatch(/from\s*["']node:/);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error" || m.type() === "warning") problems.push(m.text());
      });
      page.on("pageerror", (e) => problems.push(e.message));
      await page.setContent("<!doctype html><title>fold</title>");
      // What the example logs, kept as values in the page.
      await page.addScriptTag({
        content: "window.logged = []; console.log = (v) => window.logged.push(v);",
      });
      await page.addScriptTag({ content: code, type: "module" });
      await page.waitForFunction(
        (n) => (globalThis as unknown as { logged: unknown[] }).logged.length >= n,
        expected.length,
      );
      expect(problems).toEqual([]);
      expect(
        await page.evaluate(() => (globalThis as unknown as { logged: unknown[] }).logged),
      ).toEqual(expected);
    } finally {
      await browser.close();
    }
  });
});

/** Every package.json inside an unpacked tarball (the bundled libraries' included). */
