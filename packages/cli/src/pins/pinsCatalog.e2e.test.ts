import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectSdkClient, type SdkClient } from "../../testing/sdkClient.js";
import { cleanEnv, runCli, tempDir } from "../../testing/spawnCli.js";
import { eventually, type ServeProcess, startServeHttp } from "../../testing/startServe.js";

// P3 must not cry wolf: real servers' definitions, published on npm and listed offline with
// dummy credentials (over a hundred tools, with prompts, resources, templates and
// instructions), are all trusted at first use and served; no check fires.

const require = createRequire(import.meta.url);

/** A dev dependency's bin, run with this Node (nothing is downloaded). */
function bin(pkg: string, ...args: string[]): { command: string; args: string[] } {
  const manifest = require.resolve(`${pkg}/package.json`);
  const bins = (
    JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> | string }
  ).bin;
  const path = typeof bins === "string" ? bins : Object.values(bins)[0]!;
  return { command: process.execPath, args: [join(dirname(manifest), path), ...args] };
}

const SERVERS = {
  everything: () => bin("@modelcontextprotocol/server-everything", "stdio"),
  filesystem: (dir: string) => bin("@modelcontextprotocol/server-filesystem", dir),
  memory: () => bin("@modelcontextprotocol/server-memory"),
  github: () => bin("@modelcontextprotocol/server-github"),
  slack: () => bin("@modelcontextprotocol/server-slack"),
  maps: () => bin("@modelcontextprotocol/server-google-maps"),
  brave: () => bin("@modelcontextprotocol/server-brave-search"),
  thinking: () => bin("@modelcontextprotocol/server-sequential-thinking"),
  notion: () => bin("@notionhq/notion-mcp-server"),
};

describe("a clean catalog of real servers raises nothing (P3)", () => {
  let dir: string;
  let db: string;
  let serve: ServeProcess;
  let client: SdkClient;

  beforeAll(async () => {
    dir = tempDir();
    db = join(dir, "pins.db");
    const config = join(dir, "mcp.json");
    const mcpServers: Record<string, unknown> = {};
    for (const [name, make] of Object.entries(SERVERS)) mcpServers[name] = make(dir);
    writeFileSync(config, JSON.stringify({ mcpServers }));
    serve = await startServeHttp(
      ["--config", config, "--db", db],
      dir,
      cleanEnv(dir, {
        GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_dummy",
        SLACK_BOT_TOKEN: "xoxb-dummy",
        SLACK_TEAM_ID: "T0000",
        GOOGLE_MAPS_API_KEY: "dummy",
        BRAVE_API_KEY: "dummy",
        NOTION_TOKEN: "ntn_dummy",
        MEMORY_FILE_PATH: join(dir, "memory.jsonl"),
      }),
    );
    const count = Object.keys(SERVERS).length;
    await eventually(
      () => (serve.stderr().match(/ is ready/g) ?? []).length === count,
      "every server ready",
      120_000,
    );
    client = await connectSdkClient(serve.url);
  }, 180_000);

  afterAll(async () => {
    await client?.close();
    await serve?.stop();
  });

  test("over a hundred tools, their prompts, resources and instructions: all approved at first use, all served", async () => {
    const r = await runCli(["pins", "--db", db, "--json"], { cwd: dir, env: cleanEnv(dir) });
    expect(r.code).toBe(0);
    const rows = (
      JSON.parse(r.stdout) as {
        rows: { server: string; kind: string; status: string; findings: unknown[] }[];
      }
    ).rows;
    const tools = rows.filter((row) => row.kind === "tool");
    expect(tools.length).toBeGreaterThanOrEqual(100);
    expect(new Set(rows.map((row) => row.kind))).toEqual(
      new Set(["tool", "prompt", "resource", "resource_template", "instructions"]),
    );
    expect(rows.filter((row) => row.status !== "approved" || row.findings.length > 0)).toEqual([]);
    const awaiting = await runCli(["pins", "--awaiting", "--db", db], {
      cwd: dir,
      env: cleanEnv(dir),
    });
    expect(awaiting.stderr).toContain("nothing awaits a decision");
    expect(serve.stderr()).not.toMatch(/await approval|not approved/);
    // Every pinned tool is served (the catalog's tools are the client's list).
    const served = (await client.tools()).map((t) => t.name);
    expect(served.length).toBe(tools.length);
    const prompts = (await client.client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts.length).toBe(rows.filter((row) => row.kind === "prompt").length);
  });
});
