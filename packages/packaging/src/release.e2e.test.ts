import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { ExtensionConnection, fetchTools } from "@toolledger/adapters-mcp";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { chromiumSkipReason, launchChromium } from "../../cli/src/_testing/chromium.js";
import {
  localPrebuild,
  npm,
  offlineNpmEnv,
  REPO,
  type Run,
  run,
  tempDir,
  unpack,
} from "./_testing/freshInstall.js";
import type { ReleaseResult } from "./buildRelease.js";

// Issue 25: the release as a user gets it. `pnpm release`'s tool packs everything; the command
// is installed into an empty npm prefix and the libraries into an empty project with plain
// npm, offline (the tarballs and npm's cache); then the installed command runs the demo, a
// gateway session with the MCP SDK's client, install, doctor and an upgrade, and the core
// is type-checked in Node ESM and folded in Chromium from a browser bundle (E5).

// npm installs, packs and processes on a shared two-core machine: minutes, not seconds.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 900_000 });

const PACKAGING = join(REPO, "packages", "packaging", "dist", "main.js");
const dir = tempDir("release-e2e");
const out = join(dir, "release");
let release: ReleaseResult;
let npmEnv: Record<string, string>;
const prefix = join(dir, "prefix");
const bin = join(prefix, "bin", "toolledger");
const installed = join(prefix, "lib", "node_modules", "toolledger");

/** The installed command's environment: a new user's home, npm's bin on the PATH. */
const userEnv = (): Record<string, string> => ({
  PATH: `${join(prefix, "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`,
  HOME: join(dir, "home"),
});
const toolledger = (args: readonly string[], timeoutMs = 120_000): Promise<Run> =>
  run(bin, args, { cwd: dir, env: userEnv(), timeoutMs });

async function pack(extra: readonly string[] = [], to = out): Promise<ReleaseResult> {
  const r = await run(process.execPath, [PACKAGING, "--out", to, "--json", ...extra], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? dir },
  });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as ReleaseResult;
}

const commandTarball = (result: ReleaseResult) =>
  result.tarballs.find((t) => t.kind === "command")!;
const libraries = (result: ReleaseResult) => result.tarballs.filter((t) => t.kind === "library");

beforeAll(async () => {
  mkdirSync(join(dir, "home"), { recursive: true });
  release = await pack();
  npmEnv = offlineNpmEnv(dir, localPrebuild(dir).dir);
  await npm(
    [
      "install",
      "--global",
      "--allow-scripts=better-sqlite3",
      "--prefix",
      prefix,
      commandTarball(release).file,
    ],
    {
      cwd: dir,
      env: npmEnv,
    },
  );
}, 900_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }), 300_000);

describe("the release folder", () => {
  test("one command and four libraries, each manifest complete and publishable", () => {
    expect(release.tarballs.map((t) => [t.name, t.kind])).toEqual([
      ["@toolledger/core", "library"],
      ["@toolledger/store-sqlite", "library"],
      ["@toolledger/store-postgres", "library"],
      ["@toolledger/adapters-mcp", "library"],
      ["toolledger", "command"],
    ]);
    for (const t of release.tarballs) {
      expect(existsSync(t.file)).toBe(true);
      const pkg = unpack(t.file, join(dir, "unpacked", t.name));
      for (const manifestPath of manifests(pkg)) {
        const text = readFileSync(manifestPath, "utf8");
        expect(text, manifestPath).not.toMatch(/"(workspace|catalog):/);
      }
      const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as Record<
        string,
        unknown
      >;
      expect(manifest).toMatchObject({
        version: release.version,
        license: "MIT",
        type: "module",
        engines: { node: ">=20.19" },
        repository: { type: "git", url: expect.stringMatching(/^git\+https:\/\//) },
        description: expect.any(String),
      });
      for (const file of ["README.md", "LICENSE", "package.json"])
        expect(t.files, `${t.name} ${file}`).toContain(file);
      // Every export's target, types first, is in the tarball.
      for (const [subpath, target] of Object.entries(manifest.exports as Record<string, unknown>)) {
        if (typeof target === "string") {
          expect(existsSync(join(pkg, target)), `${t.name} ${subpath}`).toBe(true);
          continue;
        }
        expect(Object.keys(target as object)[0], `${t.name} ${subpath}`).toBe("types");
        for (const file of Object.values(target as Record<string, string>))
          expect(existsSync(join(pkg, file)), `${t.name} ${subpath} ${file}`).toBe(true);
      }
    }
  });

  test("no tests, fixtures, sources, maps or test servers; the demo's servers and the rules inside the command", () => {
    for (const t of release.tarballs) {
      const wrong = t.files.filter(
        (f) =>
          /\.test\.|(^|\/)(_testing|fixtures|testing|src)\/|\.map$|\.tsbuildinfo$/.test(f) ||
          (/dist\/servers\//.test(f) && !/dist\/servers\/(notes|calculator)\.(js|d\.ts)$/.test(f)),
      );
      expect(wrong, t.name).toEqual([]);
    }
    const command = commandTarball(release);
    expect(command.files).toEqual(
      expect.arrayContaining([
        "docs/rules.md",
        "CHANGELOG.md",
        "dist/main.js",
        "dist/view/page.bundle.js",
        "node_modules/@toolledger/adapters-mcp/dist/servers/notes.js",
        "node_modules/@toolledger/adapters-mcp/dist/servers/calculator.js",
      ]),
    );
    expect(command.bundled.sort()).toEqual([
      "@toolledger/adapters-mcp",
      "@toolledger/core",
      "@toolledger/store-postgres",
      "@toolledger/store-sqlite",
    ]);
    // The bundled libraries are the library tarballs' files.
    for (const library of libraries(release)) {
      for (const file of library.files.filter((f) => f.startsWith("dist/")))
        expect(command.files).toContain(`node_modules/${library.name}/${file}`);
    }
    for (const t of release.tarballs)
      expect(t.size, `${t.name} packed bytes`).toBeLessThan(
        t.kind === "command" ? 1_000_000 : 250_000,
      );
  });
});

describe("the command, installed with npm into an empty prefix, offline", () => {
  test("toolledger --version", async () => {
    const r = await toolledger(["--version"]);
    expect(r).toMatchObject({ code: 0, stdout: `${release.version}\n` });
    // npm's link, and nothing of the source checkout anywhere in the installation.
    expect(readFileSync(join(installed, "package.json"), "utf8")).not.toContain("workspace");
    expect(
      existsSync(
        join(
          installed,
          "node_modules",
          "better-sqlite3",
          "build",
          "Release",
          "better_sqlite3.node",
        ),
      ),
    ).toBe(true);
  });

  test("toolledger demo: a real session through the gateway, recorded in SQLite; explain cites the rules inside the package", async () => {
    const r = await toolledger(["demo"], 180_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("started 2 example MCP servers as processes: notes");
    expect(r.stdout).toMatch(/Done in [\d.]+s\. Next, try:/);
    const session = /toolledger replay (conv-\S+)/.exec(r.stdout)?.[1];
    expect(session).toBeDefined();
    const explained = await toolledger(["explain", "notes__add_note", "--session", session!]);
    expect(explained.code, explained.stderr).toBe(0);
    expect(explained.stdout).toContain(`rules: ${join(installed, "docs", "rules.md")}`);
  });

  test("toolledger serve, driven by the MCP SDK's client over stdio: tools listed, a call made and recorded", async () => {
    const config = join(dir, "serve.json");
    const notes = join(
      installed,
      "node_modules",
      "@toolledger",
      "adapters-mcp",
      "dist",
      "servers",
      "notes.js",
    );
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [notes] } } }),
    );
    const db = join(dir, "serve.db");
    const client = await ExtensionConnection.connect(
      {
        type: "stdio",
        name: "toolledger",
        command: bin,
        args: ["serve", "--config", config, "--db", db],
        env: userEnv(),
      },
      { connectTimeoutMs: 60_000 },
    );
    try {
      let tools = (await fetchTools(client, { requestTimeoutMs: 30_000, maxPages: 5 })).tools;
      for (let i = 0; i < 50 && !tools.some((t) => t.name === "notes__add_note"); i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        tools = (await fetchTools(client, { requestTimeoutMs: 30_000, maxPages: 5 })).tools;
      }
      expect(tools.map((t) => t.name)).toContain("notes__add_note");
      const added = await client.callTool(
        "notes__add_note",
        { title: "from npm", body: "installed offline" },
        { timeoutMs: 30_000 },
      );
      expect(added.isError ?? false).toBe(false);
    } finally {
      await client.close();
    }
    const sessions = await toolledger(["sessions", "--db", db, "--json"]);
    expect(sessions.code, sessions.stderr).toBe(0);
    const [conversation] = JSON.parse(sessions.stdout) as { calls: number; kind: string }[];
    expect(conversation).toMatchObject({ kind: "conversation", calls: 1 });
  });

  test("install writes npm's stable link; the host's entry survives an upgrade and the removal of the folder it came from", async () => {
    const home = join(dir, "home");
    const cursor = join(home, ".cursor", "mcp.json");
    mkdirSync(join(cursor, ".."), { recursive: true });
    const notes = join(
      installed,
      "node_modules",
      "@toolledger",
      "adapters-mcp",
      "dist",
      "servers",
      "notes.js",
    );
    writeFileSync(
      cursor,
      JSON.stringify(
        { mcpServers: { notes: { command: process.execPath, args: [notes] } } },
        null,
        2,
      ),
    );
    const r = await toolledger(["install", "cursor", "--yes"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `the host starts ${bin}, npm's link to the installed toolledger ${release.version}`,
    );
    const entry = (
      JSON.parse(readFileSync(cursor, "utf8")) as {
        mcpServers: { toolledger: { command: string; args: string[] } };
      }
    ).mcpServers.toolledger;
    expect(entry.command).toBe(bin);
    expect(entry.args[0]).toBe("serve");

    // Upgrade: a newer release installed over it with npm; the folder it came from deleted.
    const newer = await pack(["--version", "0.99.0"], join(dir, "release-next"));
    await npm(
      [
        "install",
        "--global",
        "--allow-scripts=better-sqlite3",
        "--prefix",
        prefix,
        commandTarball(newer).file,
      ],
      {
        cwd: dir,
        env: npmEnv,
      },
    );
    rmSync(join(dir, "release-next"), { recursive: true, force: true });

    const upgraded = await run(entry.command, ["--version"], { cwd: dir, env: userEnv() });
    expect(upgraded.stdout).toBe("0.99.0\n");
    // As Cursor starts it: the entry's command and args.
    const client = await ExtensionConnection.connect(
      {
        type: "stdio",
        name: "toolledger",
        command: entry.command,
        args: entry.args,
        env: userEnv(),
      },
      { connectTimeoutMs: 60_000 },
    );
    try {
      let names: string[] = [];
      for (let i = 0; i < 50 && !names.includes("notes__add_note"); i++) {
        names = (await fetchTools(client, { requestTimeoutMs: 30_000, maxPages: 5 })).tools.map(
          (t) => t.name,
        );
        if (!names.includes("notes__add_note"))
          await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(names).toContain("notes__add_note");
    } finally {
      await client.close();
    }
  }, 600_000);

  test("toolledger doctor: the installed module, the host's command; a missing native module said with what to do", async () => {
    const healthy = await toolledger(["doctor", "--json", "--no-servers"]);
    expect(healthy.code, healthy.stdout + healthy.stderr).toBe(0);
    const report = JSON.parse(healthy.stdout) as {
      findings: { check: string; status: string; message: string; fix?: string }[];
    };
    expect(report.findings.find((f) => f.check === "sqlite")).toMatchObject({ status: "ok" });
    expect(
      report.findings.find((f) => f.check === "host" && f.message.startsWith("gateway installed")),
    ).toMatchObject({
      status: "ok",
      message: `gateway installed; runs ${bin} serve`,
    });
    // As after `npm i -g --ignore-scripts`, or an install script that failed offline.
    const module = join(
      installed,
      "node_modules",
      "better-sqlite3",
      "build",
      "Release",
      "better_sqlite3.node",
    );
    renameSync(module, `${module}.away`);
    try {
      const broken = await toolledger(["doctor", "--no-servers"]);
      expect(broken.code).toBe(7);
      expect(broken.stdout).toContain(
        `→ its install script was skipped or failed (npm's allow-scripts, --ignore-scripts, or no network for the prebuilt binary): reinstall with npm i -g toolledger --allow-scripts=better-sqlite3, or build it: cd ${join(installed, "node_modules", "better-sqlite3")} && npm run build-release`,
      );
    } finally {
      renameSync(`${module}.away`, module);
    }
  });
});

describe("the libraries, installed together into an empty project with npm, offline", () => {
  const project = join(dir, "consumer");
  let example: string;
  let expected: unknown[];

  beforeAll(async () => {
    mkdirSync(project, { recursive: true });
    const command = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
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
          // npm 11 runs a dependency's install script only when the project allows it.
          allowScripts: { "better-sqlite3": true },
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
  }, 900_000);

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
  }, 300_000);

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
function manifests(pkg: string): string[] {
  const found = [join(pkg, "package.json")];
  const scoped = join(pkg, "node_modules", "@toolledger");
  if (existsSync(scoped))
    for (const name of readdirSync(scoped)) found.push(join(scoped, name, "package.json"));
  return found;
}
