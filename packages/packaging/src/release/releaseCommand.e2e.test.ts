import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { ExtensionConnection, fetchTools } from "@toolledger/adapters-mcp";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import {
  commandTarball,
  libraries,
  npm,
  offlineNpmEnv,
  packRelease,
  type Run,
  run,
  tempDir,
  unpack,
  workspaceModule,
} from "../../testing/freshInstall.js";
import type { ReleaseResult } from "./buildRelease.js";

// Issue 25: the release as a user gets it. The release tool (`pnpm release`) packs everything
// and the command is installed into an empty npm prefix with plain npm, offline (the tarballs
// and npm's cache); then the installed command runs --version, the demo, a gateway session
// with the MCP SDK's client, install, an upgrade and doctor. The libraries' side is
// releaseLibraries.e2e.test.ts.

// npm installs, packs and processes on a shared two-core machine: minutes, not seconds.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 900_000 });

const dir = tempDir("release-command");
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

beforeAll(async () => {
  mkdirSync(join(dir, "home"), { recursive: true });
  release = await packRelease(out);
  // No prebuilt binary but the one the command carries, and no nodedir: a build could not
  // fetch Node's headers, nor prebuild-install reach GitHub.
  npmEnv = offlineNpmEnv(dir);
  await npm(
    [
      "install",
      "--global",
      "--allow-scripts=better-sqlite3",
      "--prefix",
      prefix,
      commandTarball(release).file,
    ],
    { cwd: dir, env: npmEnv },
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
        engines: { node: "^20.19.0 || ^22.12.0 || ^24.0.0 || ^26.0.0" },
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
    // The command's own files, and the native module it carries (about 1 MB gzipped).
    const carriedBytes = statSync(
      join(dir, "unpacked", command.name, "package", carriedFile()),
    ).size;
    for (const t of release.tarballs)
      expect(t.size - (t === command ? carriedBytes : 0), `${t.name} packed bytes`).toBeLessThan(
        t.kind === "command" ? 1_000_000 : 250_000,
      );
    expect(carriedBytes).toBeLessThan(2_000_000);
  });

  test("--without-native-module: a release to publish carries none, and says nothing of one", async () => {
    const bare = await packRelease(join(dir, "release-bare"), ["--without-native-module"]);
    expect(bare.nativeModule).toBeUndefined();
    const files = commandTarball(bare).files;
    expect(files.filter((f) => f.startsWith("prebuilds/") || f === ".prebuild-installrc")).toEqual(
      [],
    );
    expect(commandTarball(bare).size).toBeLessThan(1_000_000);
  });

  test("issue 34, point 12: the command carries the better-sqlite3 module pnpm install built, for this Node, where prebuild-install looks first", () => {
    const module = workspaceModule();
    expect(release.nativeModule).toEqual({
      carried: true,
      version: module.version,
      file: `prebuilds/better-sqlite3-v${module.version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`,
      node: process.version,
      abi: process.versions.modules,
      platform: process.platform,
      arch: process.arch,
    });
    const command = commandTarball(release);
    const carried = carriedFile();
    expect(command.files).toEqual(expect.arrayContaining([carried, ".prebuild-installrc"]));
    const pkg = join(dir, "unpacked", command.name, "package");
    expect(readFileSync(join(pkg, ".prebuild-installrc"), "utf8")).toMatch(
      /^local-prebuilds=\.\.\/\.\.\/prebuilds$/m,
    );
    // The binary inside is the workspace's, byte for byte.
    const unpacked = join(dir, "prebuild");
    mkdirSync(unpacked);
    execFileSync("tar", ["xzf", join(pkg, carried), "-C", unpacked]);
    expect(readdirSync(join(unpacked, "build", "Release"))).toEqual(["better_sqlite3.node"]);
    expect(
      readFileSync(join(unpacked, "build", "Release", "better_sqlite3.node")).equals(
        readFileSync(module.binary),
      ),
    ).toBe(true);
  });
});

describe("the command, installed with npm into an empty prefix, offline", () => {
  test("toolledger --version", async () => {
    const r = await toolledger(["--version"]);
    expect(r).toMatchObject({ code: 0, stdout: `${release.version}\n` });
    // npm's link, and nothing of the source checkout anywhere in the installation.
    expect(readFileSync(join(installed, "package.json"), "utf8")).not.toContain("workspace");
    // The module the command carries, unpacked by better-sqlite3's install script: nothing
    // compiled (node-gyp leaves its Makefile, config.gypi and objects in build/).
    const build = join(installed, "node_modules", "better-sqlite3", "build");
    expect(readdirSync(build)).toEqual(["Release"]);
    expect(readdirSync(join(build, "Release"))).toEqual(["better_sqlite3.node"]);
    expect(
      readFileSync(join(build, "Release", "better_sqlite3.node")).equals(
        readFileSync(workspaceModule().binary),
      ),
    ).toBe(true);
  });

  test("toolledger demo: a real session through the gateway, recorded in SQLite; explain and view cite the rules inside the package", async () => {
    const r = await toolledger(["demo"], 180_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("started 2 example MCP servers as processes: notes");
    expect(r.stdout).toMatch(/Done in [\d.]+s\. Next, try:/);
    const session = /toolledger replay (conv-\S+)/.exec(r.stdout)?.[1];
    expect(session).toBeDefined();
    const explained = await toolledger(["explain", "notes__add_note", "--session", session!]);
    expect(explained.code, explained.stderr).toBe(0);
    expect(explained.stdout).toContain(`rules: ${join(installed, "docs", "rules.md")}`);
    // The view: the page's script inlined, its rules linked into the installed package.
    const page = join(dir, "demo.html");
    const viewed = await toolledger(["view", session!, "--out", page]);
    expect(viewed.code, viewed.stderr).toBe(0);
    const html = readFileSync(page, "utf8");
    expect(html).toContain(`file://${join(installed, "docs", "rules.md")}#`);
    expect(html.length).toBeGreaterThan(300_000);
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
    const newer = await packRelease(join(dir, "release-next"), ["--version", "0.99.0"]);
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

/** The prebuilt binary's tarball inside the command's package. */
function carriedFile(): string {
  if (!release.nativeModule?.carried)
    throw new Error(
      `the release carries no native module: ${JSON.stringify(release.nativeModule)}`,
    );
  return release.nativeModule.file;
}

function manifests(pkg: string): string[] {
  const found = [join(pkg, "package.json")];
  const scoped = join(pkg, "node_modules", "@toolledger");
  if (existsSync(scoped))
    for (const name of readdirSync(scoped)) found.push(join(scoped, name, "package.json"));
  return found;
}
