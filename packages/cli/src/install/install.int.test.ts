import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { REPO } from "../../testing/spawnCli.js";
import { testDeps } from "../../testing/testDeps.js";
import { parseConfig } from "../config/loadConfig.js";
import { run } from "../program/run.js";
import { type ClientName, findHostClient, GATEWAY_ENTRY_NAME } from "./hostClients.js";
import { installDirectory, readInstallRecord } from "./installRecord.js";
import { readServerEntries } from "./rewriteServers.js";

// install / uninstall on copies of each client's fixture config, through the CLI's run().
const FIXTURES = join(REPO, "packages", "cli", "fixtures");

const CASES: { client: ClientName; fixture: string; moved: string[]; kept: string[] }[] = [
  {
    client: "claude-desktop",
    fixture: "claude-desktop/claude_desktop_config.json",
    moved: ["notes", "environment", "Calculator"],
    kept: [],
  },
  {
    client: "cursor",
    fixture: "cursor/.cursor/mcp.json",
    moved: ["calculator", "environment", "legacy-sse", "remote"],
    kept: [],
  },
  {
    client: "vscode",
    fixture: "vscode/.vscode/mcp.json",
    moved: ["notes", "environment", "web"],
    kept: [],
  },
  {
    client: "goose",
    fixture: "goose/config.yaml",
    moved: ["notes", "environment", "remote", "legacy"],
    kept: ["developer", "todo", "canvas", "hello", "old"],
  },
];

function setup(fixture: string) {
  const captured = testDeps();
  const file = join(captured.dir, "client", fixture);
  mkdirSync(join(file, ".."), { recursive: true });
  cpSync(join(FIXTURES, fixture), file);
  return { ...captured, file, original: readFileSync(file) };
}

const settings = (file: string, text: string) =>
  parseConfig(file, text, { env: {}, home: "/h", cwd: "/c", structureOnly: true }).servers.map(
    ({ source: _, ...rest }) => rest,
  );

describe.each(CASES)("install / uninstall $client", ({ client, fixture, moved, kept }) => {
  test("moves the servers behind one toolledger serve entry, shows the diff, keeps a backup; uninstall restores the bytes", async () => {
    const { deps, dir, file, original, stdout, stderr } = setup(fixture);
    const db = join(dir, "sessions.db");
    const code = await run(
      ["install", client, "--file", file, "--db", db, "--deferral", "lookup", "--yes"],
      deps,
    );
    expect(code, stderr()).toBe(0);
    const spec = findHostClient(client)!;
    const after = readFileSync(file, "utf8");
    const entries = readServerEntries(after, spec.format);
    expect(entries.map((e) => e.name)).toEqual([...kept, GATEWAY_ENTRY_NAME]);
    const gateway = entries.at(-1)?.value as { command?: string; cmd?: string; args: string[] };
    // Run from this checkout, install writes no path into it: npx with the major pinned.
    expect(gateway.command ?? gateway.cmd).toBe("npx");
    expect(gateway.args.slice(0, 4)).toEqual(["-y", "toolledger@0.0", "serve", "--config"]);
    expect(gateway.args.slice(5)).toEqual(["--db", db, "--deferral", "lookup"]);
    expect(JSON.stringify(entries)).not.toContain(REPO);
    expect(stderr()).toContain("the host starts npx -y toolledger@0.0");
    expect(stderr()).toContain(`runs from a source checkout (${join(REPO, "packages", "cli")})`);
    // The diff came first, on stdout.
    expect(stdout()).toContain(`--- ${file}`);
    expect(stdout()).toMatch(/\n\+.*toolledger/);
    expect(readFileSync(`${file}.toolledger-backup`)).toEqual(original);

    // The servers file holds exactly the moved servers, read with the same effect as before.
    const serversFile = gateway.args[4] as string;
    const serversText = readFileSync(serversFile, "utf8");
    const before = settings(file, original.toString("utf8"));
    expect(settings(serversFile, serversText)).toEqual(
      before.filter((s) => moved.includes(s.name)),
    );
    // Everything outside the server map is as it was.
    if (spec.format.kind === "json") {
      const strip = (t: string) => t.replace(/"(mcpServers|servers)": \{[\s\S]*\n {2}\}/, "");
      expect(strip(after)).toBe(strip(original.toString("utf8")));
    } else {
      expect(after.split("\n").slice(0, 4)).toEqual(
        original.toString("utf8").split("\n").slice(0, 4),
      );
    }

    const back = await run(["uninstall", client, "--file", file, "--yes"], deps);
    expect(back, stderr()).toBe(0);
    expect(readFileSync(file)).toEqual(original);
    expect(existsSync(`${file}.toolledger-backup`)).toBe(false);
    expect(existsSync(serversFile)).toBe(false);
    expect(readInstallRecord(installDirectory(client, file, deps.env, deps.home))).toBeUndefined();
  });
});

describe("install safety", () => {
  test("without --yes and without a terminal nothing is written; --dry-run only shows", async () => {
    const { deps, file, original, stdout, stderr } = setup("cursor/.cursor/mcp.json");
    expect(await run(["install", "cursor", "--file", file], deps)).toBe(2);
    expect(stderr()).toContain("nothing written");
    expect(stderr()).toContain("--yes");
    expect(stdout()).toContain("+++");
    expect(await run(["install", "cursor", "--file", file, "--dry-run"], deps)).toBe(0);
    expect(readFileSync(file)).toEqual(original);
    expect(existsSync(`${file}.toolledger-backup`)).toBe(false);
  });

  test("installing twice is a conflict; an unknown client names the known ones", async () => {
    const { deps, file, stderr } = setup("cursor/.cursor/mcp.json");
    expect(await run(["install", "cursor", "--file", file, "--yes"], deps)).toBe(0);
    expect(await run(["install", "cursor", "--file", file, "--yes"], deps)).toBe(5);
    expect(stderr()).toContain("already installed");
    expect(await run(["install", "zed", "--file", file], deps)).toBe(2);
    expect(stderr()).toContain("known: claude-desktop, cursor, vscode, goose");
  });

  test("a missing config file names the path and --file", async () => {
    const { deps, dir, stderr } = setup("cursor/.cursor/mcp.json");
    expect(await run(["install", "cursor", "--file", join(dir, "none.json")], deps)).toBe(4);
    expect(stderr()).toContain("no Cursor config at");
  });

  test("changes made since install survive uninstall: a server added in the client and one added to the servers file", async () => {
    const { deps, file, stderr } = setup("cursor/.cursor/mcp.json");
    expect(await run(["install", "cursor", "--file", file, "--yes"], deps)).toBe(0);
    const installed = JSON.parse(readFileSync(file, "utf8")) as {
      mcpServers: Record<string, unknown>;
    };
    installed.mcpServers.added_later = { command: "added" };
    writeFileSync(file, JSON.stringify(installed, null, 2));
    const record = readInstallRecord(installDirectory("cursor", file, deps.env, deps.home))!;
    const servers = JSON.parse(readFileSync(record.serversFile, "utf8")) as {
      mcpServers: Record<string, unknown>;
    };
    servers.mcpServers.behind_gateway = { command: "behind" };
    writeFileSync(record.serversFile, JSON.stringify(servers));
    expect(await run(["uninstall", "cursor", "--file", file, "--yes"], deps)).toBe(0);
    expect(stderr()).toContain("changed since install");
    const after = JSON.parse(readFileSync(file, "utf8")) as { mcpServers: Record<string, unknown> };
    expect(Object.keys(after.mcpServers)).toEqual([
      "added_later",
      "calculator",
      "environment",
      "legacy-sse",
      "remote",
      "behind_gateway",
    ]);
    // The pre-install config is kept under a name of its own, not where install looks.
    expect(existsSync(`${file}.toolledger-backup`)).toBe(false);
    expect(stderr()).toMatch(
      /kept .* as it was before install in .*\.toolledger-backup-\d{8}-\d{6}/,
    );
  });
});
