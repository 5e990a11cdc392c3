import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ExtensionConnection, fetchTools } from "@toolledger/adapters-mcp";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import {
  commandTarball,
  npm,
  offlineNpmEnv,
  packRelease,
  REPO,
  type Run,
  run,
  tempDir,
  workspaceModule,
} from "../../testing/freshInstall.js";
import { abiOf, nodePackage, prebuildFor, registryNode } from "../../testing/registryNode.js";
import type { ReleaseResult } from "./buildRelease.js";

// Issue 34, point 13: the release installs and runs on every Node line engines.node names, at
// the line's floor and at its newest release tested. Each Node comes from the npm registry's
// node-<platform>-<arch> package (nodejs.org's build), not from this machine; npm runs on it
// and installs the command packed by the workspace's Node; then --version, doctor, the demo,
// and a gateway session driven by the MCP SDK's client. better-sqlite3 on that Node: the
// module the command carries where the ABI is the packing Node's, else one compiled for the
// ABI (once, cached) by the workspace's install script with headers from the registry.

// Downloads, compiles and npm installs on a shared two-core machine: minutes, not seconds.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 2_400_000 });

/** The newest release of each supported line this test runs; engines.node gives the floors. */
const NEWEST: Record<string, string> = {
  "20": "20.20.2",
  "22": "22.23.5",
  "24": "24.22.3",
  "26": "26.12.1",
};

const engines = (
  JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { engines: { node: string } }
).engines.node;
const floors = engines.split("||").map((range) => {
  const floor = /^\s*\^(\d+)\.(\d+)\.(\d+)\s*$/.exec(range);
  if (!floor) throw new Error(`engines.node: ${range.trim()} is not a ^X.Y.Z range`);
  return floor.slice(1).join(".");
});
const NODES = [
  ...new Set(floors.flatMap((floor) => [floor, NEWEST[floor.split(".")[0]!] ?? floor])),
];

const dir = tempDir("node-versions");
let release: ReleaseResult;

beforeAll(async () => {
  release = await packRelease(join(dir, "release"));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("engines.node names exactly the Node lines this test runs, each from its floor", () => {
  expect(floors.map((f) => f.split(".")[0]).sort()).toEqual(Object.keys(NEWEST).sort());
  for (const floor of floors)
    expect(NODES).toEqual(expect.arrayContaining([floor, NEWEST[floor.split(".")[0]!]]));
  // The odd lines, short-lived and out of support, are not among them.
  expect(floors.some((f) => Number(f.split(".")[0]) % 2 === 1)).toBe(false);
});

describe.each(NODES)("Node %s from the npm registry", (version) => {
  const home = join(dir, `home-${version}`);
  const prefix = join(dir, `prefix-${version}`);
  const bin = join(prefix, "bin", "toolledger");
  let node: { bin: string; node: string };
  /** The module npm's install should leave, and, when compiled for this ABI, the compile's log. */
  let expected: { binary: Buffer; log?: string };

  /** A user's environment on that Node: its bin first on the PATH, npm's global bin next. */
  const userEnv = (): Record<string, string> => ({
    PATH: `${node.bin}:${join(prefix, "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    HOME: home,
  });
  const toolledger = (args: readonly string[], timeoutMs = 120_000): Promise<Run> =>
    run(bin, args, { cwd: dir, env: userEnv(), timeoutMs });

  beforeAll(async () => {
    mkdirSync(home, { recursive: true });
    node = registryNode(version);
    const carried =
      release.nativeModule?.carried === true && release.nativeModule.abi === abiOf(node.node);
    const prebuilds = carried ? undefined : prebuildFor(node);
    expected = prebuilds ?? { binary: readFileSync(workspaceModule().binary) };
    // npm itself runs on that Node (the PATH's first node), offline, without nodedir.
    mkdirSync(join(dir, `npm-${version}`), { recursive: true });
    const npmEnv = offlineNpmEnv(join(dir, `npm-${version}`), prebuilds?.dir);
    await npm(
      [
        "install",
        "--global",
        "--allow-scripts=better-sqlite3",
        "--prefix",
        prefix,
        commandTarball(release).file,
      ],
      { cwd: dir, env: { ...npmEnv, PATH: `${node.bin}:${npmEnv.PATH}` } },
    );
  });

  test("better-sqlite3: the command's carried module for the packing Node's ABI, else one compiled for this ABI with headers from the npm registry; nothing compiled by npm", () => {
    const build = join(
      prefix,
      "lib",
      "node_modules",
      "toolledger",
      "node_modules",
      "better-sqlite3",
      "build",
    );
    expect(readdirSync(build)).toEqual(["Release"]);
    expect(readdirSync(join(build, "Release"))).toEqual(["better_sqlite3.node"]);
    expect(
      readFileSync(join(build, "Release", "better_sqlite3.node")).equals(expected.binary),
    ).toBe(true);
    // Compiled for this ABI by this line's first Node in the run (or an earlier run).
    const major = version.split(".")[0];
    const registry = nodePackage(`${major}.`).replace(/[.]/g, "\\.");
    if (expected.log !== undefined)
      expect(expected.log).toMatch(
        new RegExp(
          `better-sqlite3: no headers of Node v${major}\\.\\d+\\.\\d+ on this machine: fetching ${registry}\\d+\\.\\d+ from the npm registry`,
        ),
      );
  });

  test("--version and doctor run on that Node: engines allow it, the native module loads", async () => {
    const v = await toolledger(["--version"]);
    expect(v).toMatchObject({ code: 0, stdout: `${release.version}\n` });
    const doctor = await toolledger(["doctor", "--json", "--no-servers"]);
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    const findings = (
      JSON.parse(doctor.stdout) as {
        findings: { check: string; subject: string; status: string; message: string }[];
      }
    ).findings;
    expect(findings.find((f) => f.check === "node")).toEqual({
      check: "node",
      subject: `Node ${version}`,
      status: "ok",
      message: `toolledger supports ${engines}`,
    });
    expect(findings.find((f) => f.check === "sqlite")).toMatchObject({
      status: "ok",
      message: expect.stringContaining(`Node ABI ${abiOf(node.node)}`),
    });
  });

  test("toolledger demo", async () => {
    const r = await toolledger(["demo"], 180_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("started 2 example MCP servers as processes: notes");
    expect(r.stdout).toMatch(/Done in [\d.]+s\. Next, try:/);
  });

  test("toolledger serve, driven by the MCP SDK's client over stdio: tools listed, a call made and recorded", async () => {
    const notes = join(
      prefix,
      "lib",
      "node_modules",
      "toolledger",
      "node_modules",
      "@toolledger",
      "adapters-mcp",
      "dist",
      "servers",
      "notes.js",
    );
    const config = join(dir, `serve-${version}.json`);
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { notes: { command: node.node, args: [notes] } } }),
    );
    const db = join(dir, `serve-${version}.db`);
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
        { title: `on Node ${version}`, body: "installed offline" },
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
});
