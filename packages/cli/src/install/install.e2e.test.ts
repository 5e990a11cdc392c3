import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ExtensionConnection, fetchTools } from "@toolledger/adapters-mcp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { REPO, runCli, SERVERS, tempDir } from "../../testing/spawnCli.js";
import { startTestServer, type TestServer } from "../../testing/startTestServer.js";

// The built CLI installs itself into a copy of Cursor's config; the entry it wrote is then
// started the way Cursor starts a server, and a client sees the moved servers through it.
let http: TestServer;
let sse: TestServer;
beforeAll(async () => {
  [http, sse] = await Promise.all([startTestServer("http"), startTestServer("sse")]);
});
afterAll(async () => {
  await Promise.all([http?.stop(), sse?.stop()]);
});

describe("install, then the host starts what install wrote", () => {
  test("cursor: the gateway entry serves every moved server; uninstall restores the file", async () => {
    const dir = tempDir();
    const file = join(dir, "project", ".cursor", "mcp.json");
    mkdirSync(join(file, ".."), { recursive: true });
    cpSync(join(REPO, "packages", "cli", "fixtures", "cursor", ".cursor", "mcp.json"), file);
    const original = readFileSync(file);
    const env = { PATH: process.env.PATH ?? "", HOME: join(dir, "home") };
    const db = join(dir, "gateway.db");
    // This checkout's launcher, given as --command (left out, install would write npx: a
    // source checkout may move; the installed package's own path is release.e2e's to prove).
    const launcher = join(REPO, "packages", "cli", "bin", "toolledger");
    const installed = await runCli(
      [
        "install",
        "cursor",
        "--file",
        file,
        "--db",
        db,
        "--deferral",
        "lookup",
        "--command",
        launcher,
        "--yes",
      ],
      { cwd: dir, env },
    );
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).toContain(`the host starts ${launcher} (--command, toolledger `);
    const entry = (
      JSON.parse(readFileSync(file, "utf8")) as {
        mcpServers: { toolledger: { command: string; args: string[] } };
      }
    ).mcpServers.toolledger;
    expect(entry.command).toBe(launcher);
    expect(entry.args.slice(0, 1).concat(entry.args.slice(-2))).toEqual([
      "serve",
      "--deferral",
      "lookup",
    ]);

    // As Cursor would: the entry's command and args, the user's environment; it lists again
    // on every tools/list_changed, as servers that start later join.
    let relist = () => {};
    const gateway = await ExtensionConnection.connect(
      {
        type: "stdio",
        name: "toolledger",
        command: entry.command,
        args: entry.args,
        env: {
          ...env,
          TOOLLEDGER_SERVERS: SERVERS,
          HTTP_PORT: http.port,
          SSE_PORT: sse.port,
          SSE_KEY: "sse-key-1234",
        },
      },
      { connectTimeoutMs: 30_000, onListChanged: () => relist() },
    );
    try {
      const deferredNames = async () =>
        (await fetchTools(gateway, { requestTimeoutMs: 20_000, maxPages: 5 })).tools.find(
          (t) => t.name === "enable_tools",
        )?.description ?? "";
      const all = (d: string) =>
        ["calculator__", "environment__", "legacy-sse__", "remote__"].every((p) => d.includes(p));
      const joined = new Promise<string>((resolve, reject) => {
        relist = () => deferredNames().then((d) => (all(d) ? resolve(d) : undefined), reject);
      });
      const first = await deferredNames();
      const description = all(first) ? first : await joined;
      for (const name of [
        "calculator__calculate",
        "environment__get_env",
        "legacy-sse__echo",
        "remote__echo",
      ])
        expect(description).toContain(name);
      await gateway.callTool(
        "enable_tools",
        { names: ["legacy-sse__check_header"] },
        { timeoutMs: 20_000 },
      );
      const header = await gateway.callTool("legacy-sse__check_header", {}, { timeoutMs: 20_000 });
      expect(JSON.stringify(header.content)).toContain("x-api-key present");
    } finally {
      await gateway.close();
    }
    const sessions = await runCli(["sessions", "--db", db, "--json"], { cwd: dir, env });
    expect(sessions.code).toBe(0);
    expect(JSON.parse(sessions.stdout)).not.toEqual([]);

    const uninstalled = await runCli(["uninstall", "cursor", "--file", file, "--yes"], {
      cwd: dir,
      env,
    });
    expect(uninstalled.code, uninstalled.stderr).toBe(0);
    expect(readFileSync(file)).toEqual(original);
  }, 120_000);
});

describe("uninstall after the client's config was edited (issue 20)", () => {
  test("keeps the edits, says where the pre-install config went, and the next install is not refused", async () => {
    const dir = tempDir();
    const folder = join(dir, "project", ".cursor");
    const file = join(folder, "mcp.json");
    mkdirSync(folder, { recursive: true });
    cpSync(join(REPO, "packages", "cli", "fixtures", "cursor", ".cursor", "mcp.json"), file);
    const original = readFileSync(file);
    const env = { PATH: process.env.PATH ?? "", HOME: join(dir, "home") };
    const run = (args: string[]) => runCli(args, { cwd: dir, env });
    expect((await run(["install", "cursor", "--file", file, "--yes"])).code).toBe(0);
    // The user adds a server in Cursor while toolledger is installed.
    const edited = JSON.parse(readFileSync(file, "utf8")) as {
      mcpServers: Record<string, unknown>;
    };
    edited.mcpServers.added_later = { command: "added" };
    writeFileSync(file, JSON.stringify(edited, null, 2));

    const uninstalled = await run(["uninstall", "cursor", "--file", file, "--yes"]);
    expect(uninstalled.code, uninstalled.stderr).toBe(0);
    const after = JSON.parse(readFileSync(file, "utf8")) as { mcpServers: Record<string, unknown> };
    expect(Object.keys(after.mcpServers)).toContain("added_later");
    expect(Object.keys(after.mcpServers)).not.toContain("toolledger");
    expect(existsSync(`${file}.toolledger-backup`)).toBe(false);
    const kept = readdirSync(folder).filter((n) => n.startsWith("mcp.json.toolledger-backup-"));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(folder, kept[0]!))).toEqual(original);
    expect(uninstalled.stderr).toContain(
      `kept ${file} as it was before install in ${join(folder, kept[0]!)} (your edits since install are in ${file})`,
    );

    const again = await run(["install", "cursor", "--file", file, "--yes"]);
    expect(again.code, again.stderr).toBe(0);
    const reinstalled = JSON.parse(readFileSync(file, "utf8")) as {
      mcpServers: Record<string, unknown>;
    };
    expect(Object.keys(reinstalled.mcpServers)).toContain("toolledger");
    expect((await run(["uninstall", "cursor", "--file", file, "--yes"])).code).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(after);
  }, 120_000);
});

describe("install and uninstall show no secret (issue 34, point 6)", () => {
  const TOKEN = "sk-live-4f9a8b7c6d5e";
  const HEADER = "hdr-s3cr3t-77aa66bb";
  const CLIENT_SECRET = "oauth-client-s3cr3t-1234";
  const GOOSE_KEY = "goose-env-s3cr3t-9988";

  test("cursor: env, header and OAuth values are [redacted] in both diffs, as in the log; a ${VAR} reference shows; the files keep the values", async () => {
    const dir = tempDir();
    const file = join(dir, "project", ".cursor", "mcp.json");
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(
      file,
      JSON.stringify(
        {
          mcpServers: {
            github: {
              command: "npx",
              args: ["-y", "@modelcontextprotocol/server-github"],
              env: { SECRET_TOKEN: TOKEN, FROM_ENV: "${GITHUB_TOKEN}" },
            },
            remote: {
              url: "https://mcp.example.com/mcp",
              headers: { Authorization: `Bearer ${HEADER}` },
              auth: { CLIENT_ID: "client-1", CLIENT_SECRET },
            },
          },
        },
        null,
        2,
      ),
    );
    const original = readFileSync(file);
    const env = { PATH: process.env.PATH ?? "", HOME: join(dir, "home") };
    const run = (args: string[]) => runCli(args, { cwd: dir, env });
    const secrets = [TOKEN, HEADER, CLIENT_SECRET];
    const shown = (r: { stdout: string; stderr: string }) => {
      const all = r.stdout + r.stderr;
      for (const s of secrets) expect(all).not.toContain(s);
    };

    const dry = await run(["install", "cursor", "--file", file, "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    shown(dry);
    expect(dry.stdout).toContain('-        "SECRET_TOKEN": "[redacted]",');
    expect(dry.stdout).toContain('-        "Authorization": "[redacted]"');
    expect(dry.stdout).toContain('-        "FROM_ENV": "${GITHUB_TOKEN}"');

    const installed = await run(["install", "cursor", "--file", file, "--yes"]);
    expect(installed.code, installed.stderr).toBe(0);
    shown(installed);
    expect(installed.stdout).toContain("[redacted]");
    // The servers file keeps the values: only what is printed is redacted.
    const serversFile = /moves 2 server\(s\) to (\S+):/.exec(installed.stderr)?.[1];
    expect(serversFile, installed.stderr).toBeDefined();
    for (const s of secrets) expect(readFileSync(serversFile!, "utf8")).toContain(s);

    // Uninstall after an edit, so the diff puts the servers (and their values) back.
    const edited = JSON.parse(readFileSync(file, "utf8")) as {
      mcpServers: Record<string, unknown>;
    };
    edited.mcpServers.added_later = { command: "added" };
    writeFileSync(file, JSON.stringify(edited, null, 2));
    const uninstalled = await run(["uninstall", "cursor", "--file", file, "--yes"]);
    expect(uninstalled.code, uninstalled.stderr).toBe(0);
    shown(uninstalled);
    expect(uninstalled.stdout).toContain('+        "SECRET_TOKEN": "[redacted]"');
    const restored = readFileSync(file, "utf8");
    for (const s of secrets) expect(restored).toContain(s);
    expect(original.toString("utf8")).toContain(TOKEN);
  }, 120_000);

  test("goose: envs values are [redacted] in the diff of config.yaml", async () => {
    const dir = tempDir();
    const file = join(dir, "home", ".config", "goose", "config.yaml");
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(
      file,
      [
        "extensions:",
        "  github:",
        "    enabled: true",
        "    type: stdio",
        "    name: github",
        "    cmd: npx",
        "    args: [-y, '@modelcontextprotocol/server-github']",
        "    envs:",
        `      GITHUB_PERSONAL_ACCESS_TOKEN: ${GOOSE_KEY}`,
        "    timeout: 300",
        "",
      ].join("\n"),
    );
    const env = { PATH: process.env.PATH ?? "", HOME: join(dir, "home") };
    const dry = await runCli(["install", "goose", "--file", file, "--dry-run"], { cwd: dir, env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout + dry.stderr).not.toContain(GOOSE_KEY);
    expect(dry.stdout).toContain("-      GITHUB_PERSONAL_ACCESS_TOKEN: [redacted]");
  }, 60_000);
});
