import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { testDeps } from "./_testing/testDeps.js";
import { CliError } from "./cliError.js";
import { loadConfig, parseConfig, resolveConfigPath } from "./loadConfig.js";

function failure(file: string, text: string): CliError {
  try {
    parseConfig(file, text);
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error("expected the config to be refused");
}

describe("Claude Desktop / Cursor mcpServers JSON", () => {
  test("stdio and HTTP servers, env and headers kept for the adapter", () => {
    const config = parseConfig(
      "/c/mcp.json",
      JSON.stringify(
        {
          mcpServers: {
            github: {
              command: "npx",
              args: ["-y", "server-github"],
              env: { GITHUB_TOKEN: "t0ken" },
            },
            remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer x" } },
            off: { command: "x", disabled: true },
          },
        },
        null,
        2,
      ),
    );
    expect(config.format).toBe("mcpServers");
    expect(config.servers.map((s) => [s.name, s.kind, s.enabled])).toEqual([
      ["github", "stdio", true],
      ["remote", "streamable_http", true],
      ["off", "stdio", false],
    ]);
    expect(config.servers[0]).toMatchObject({
      command: "npx",
      args: ["-y", "server-github"],
      env: { GITHUB_TOKEN: "t0ken" },
      source: { line: 3 },
    });
    expect(config.servers[1]).toMatchObject({
      url: "https://mcp.example.com/mcp",
      headers: { Authorization: "Bearer x" },
    });
  });

  test("an invalid field is reported with file, line, column and field, and never its secret values", () => {
    const text =
      '{\n  "mcpServers": {\n    "github": {\n      "command": "npx",\n      "env": { "GITHUB_TOKEN": 12345 }\n    },\n    "web": { "url": "ftp://x" }\n  }\n}\n';
    const e = failure("/c/mcp.json", text);
    expect(e.kind).toBe("badInput");
    expect(e.message).toContain("/c/mcp.json:5:");
    expect(e.message).toContain("mcpServers.github.env.GITHUB_TOKEN");
    expect(e.message).toContain("/c/mcp.json:7:");
    expect(e.message).toContain("must be an http:// or https:// URL");
    expect(e.message).not.toContain("12345");
  });

  test("a server with neither command nor url says what would be valid", () => {
    const e = failure("/c/mcp.json", '{"mcpServers": {\n "x": {"args": []}\n}}');
    expect(e.message).toMatch(/mcp\.json:2:\d+: mcpServers\.x: needs "command".*or "url"/);
  });

  test("a JSON syntax error names the line", () => {
    const e = failure("/c/mcp.json", '{"mcpServers": {\n "a": {"command": "x",}\n}}');
    expect(e.message).toMatch(/^\/c\/mcp\.json:2:\d+: invalid JSON/);
  });
});

describe("goose config.yaml", () => {
  const yaml = [
    "GOOSE_TOOL_DEFERRAL: lookup",
    "GOOSE_TOOL_DEFERRAL_ALWAYS_LOAD: github__create_issue",
    "extensions:",
    "  developer:",
    "    type: builtin",
    "    name: developer",
    "    enabled: true",
    "  github:",
    "    type: stdio",
    "    name: GitHub",
    "    cmd: github-mcp-server",
    "    args: [stdio]",
    "    envs: { GITHUB_TOKEN: secret }",
    "    available_tools: [create_issue]",
    "    timeout: 300",
    "  remote:",
    "    type: streamable_http",
    "    uri: http://localhost:8000/mcp",
    "    enabled: false",
  ].join("\n");

  test("extensions map: type, cmd, args, envs, enabled, available_tools, timeout; GOOSE_* keys (D1)", () => {
    const config = parseConfig("/g/config.yaml", yaml);
    expect(config.format).toBe("goose");
    expect(config.fileEnv).toEqual({
      GOOSE_TOOL_DEFERRAL: "lookup",
      GOOSE_TOOL_DEFERRAL_ALWAYS_LOAD: "github__create_issue",
    });
    const github = config.servers.find((s) => s.name === "GitHub")!;
    expect(github).toMatchObject({
      kind: "stdio",
      command: "github-mcp-server",
      args: ["stdio"],
      env: { GITHUB_TOKEN: "secret" },
      availableTools: ["create_issue"],
      callTimeoutSeconds: 300,
      source: { file: "/g/config.yaml", line: 8 },
    });
    expect(config.servers.find((s) => s.name === "remote")).toMatchObject({
      kind: "streamable_http",
      url: "http://localhost:8000/mcp",
      enabled: false,
    });
    expect(config.servers.find((s) => s.name === "developer")?.kind).toBe("builtin");
  });

  test("an unknown type and a missing cmd are reported at their lines, sorted", () => {
    const e = failure(
      "/g/config.yaml",
      "extensions:\n  a:\n    type: stdoi\n  b:\n    type: stdio\n    args: []\n",
    );
    const lines = e.message.split("\n").slice(1);
    expect(lines[0]).toBe(
      '/g/config.yaml:3:11: extensions.a.type: must be one of "stdio", "streamable_http", "sse", "builtin", "platform", "frontend", "inline_python"',
    );
    expect(lines[1]).toMatch(
      /^\/g\/config\.yaml:5:\d+: extensions\.b\.cmd: a stdio extension needs "cmd"/,
    );
  });

  test("a YAML syntax error names the line", () => {
    const e = failure("/g/config.yaml", "extensions:\n  a: [1, 2\n  b: 3\n");
    expect(e.message).toMatch(/^\/g\/config\.yaml:\d+:\d+: /);
    expect(e.kind).toBe("badInput");
  });

  test("a file in no known format says which formats are read", () => {
    const e = failure("/g/other.yaml", "foo: 1\n");
    expect(e.message).toContain(
      'no "mcpServers" object, no "servers" object and no "extensions" map',
    );
  });
});

describe("finding the config file", () => {
  test("--config, else TOOLLEDGER_CONFIG, else goose's own config, else a usage error", () => {
    const { deps, dir } = testDeps();
    expect(resolveConfigPath("a.json", deps.env, deps.home, dir)).toBe(join(dir, "a.json"));
    expect(resolveConfigPath(undefined, { TOOLLEDGER_CONFIG: "/x/b.yaml" }, deps.home, dir)).toBe(
      "/x/b.yaml",
    );
    expect(() => resolveConfigPath(undefined, {}, deps.home, dir)).toThrow(
      /no MCP server configuration/,
    );
    const goose = join(dir, "xdg");
    mkdirSync(join(goose, "goose"), { recursive: true });
    writeFileSync(join(goose, "goose", "config.yaml"), "extensions: {}\n");
    expect(resolveConfigPath(undefined, { XDG_CONFIG_HOME: goose }, deps.home, dir)).toBe(
      join(goose, "goose", "config.yaml"),
    );
  });

  test("a missing file is not-found", () => {
    expect(() => loadConfig("/definitely/missing.json")).toThrow(
      expect.objectContaining({ kind: "notFound" }),
    );
  });
});
