import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { testDeps } from "../../testing/testDeps.js";
import { CliError } from "../program/cliError.js";
import { loadConfig, parseConfig, resolveConfigPath } from "./loadConfig.js";
import type { ServerConfig } from "./serverConfig.js";

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
    expect(() => loadConfig("/definitely/missing.json", ctx())).toThrow(
      expect.objectContaining({ kind: "notFound" }),
    );
  });
});

const ctx = (env: Record<string, string> = {}) => ({ env, home: "/home/ada", cwd: "/work" });

function failureIn(file: string, text: string, env: Record<string, string> = {}): CliError {
  try {
    parseConfig(file, text, ctx(env));
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error("expected the config to be refused");
}

describe("${VAR} expansion in command, args, env, url, headers and cwd", () => {
  const text = JSON.stringify(
    {
      mcpServers: {
        local: {
          command: "${HOME}/bin/${TOOL}",
          args: ["--token=${env:API_TOKEN}", "--mode=${MODE:-fast}", "${userHome}/data"],
          env: { KEY: "${API_TOKEN}", PLAIN: "no variable $HERE" },
          cwd: "${workspaceFolder}/sub",
        },
        remote: {
          url: "https://${HOST}/mcp",
          headers: { Authorization: "Bearer ${env:API_TOKEN}" },
        },
      },
    },
    null,
    2,
  );
  const env = {
    HOME: "/home/ada",
    TOOL: "mcp-tool",
    API_TOKEN: "tok-123456",
    HOST: "mcp.example.com",
  };

  test("every field the hosts expand is expanded; values from variables are secrets, places are not", () => {
    const config = parseConfig("/work/mcp.json", text, ctx(env));
    const [local, remote] = config.servers;
    expect(local).toMatchObject({
      command: "/home/ada/bin/mcp-tool",
      args: ["--token=tok-123456", "--mode=fast", "/home/ada/data"],
      env: { KEY: "tok-123456", PLAIN: "no variable $HERE" },
      cwd: "/work/sub",
    });
    expect(local?.secrets.sort()).toEqual(["mcp-tool", "tok-123456"]);
    expect(remote).toMatchObject({
      kind: "streamable_http",
      url: "https://mcp.example.com/mcp",
      headers: { Authorization: "Bearer tok-123456" },
    });
  });

  test("an unset variable is an error naming it and its file:line, and no value of another variable", () => {
    const missing = failureIn("/work/mcp.json", text, {
      HOME: "/home/ada",
      TOOL: "sekrit-tool",
      HOST: "h",
    });
    expect(missing.kind).toBe("badInput");
    expect(missing.message).toContain(
      "/work/mcp.json:6:9: mcpServers.local.args.0: environment variable API_TOKEN is not set",
    );
    expect(missing.message).toMatch(
      /mcp\.json:\d+:\d+: mcpServers\.local\.env\.KEY: environment variable API_TOKEN is not set/,
    );
    expect(missing.message).not.toContain("sekrit-tool");
    expect(missing.hint).toContain("export API_TOKEN");
  });

  test("VS Code's ${input:…} cannot be prompted for: a clear error with the way out", () => {
    const e = failureIn(
      "/w/.vscode/mcp.json",
      '{"servers": {\n "a": {"type": "stdio", "command": "x", "env": {"K": "${input:api-key}"}}\n}}',
    );
    expect(e.message).toContain("mcp.json:2:");
    expect(e.message).toContain("${input:api-key} is a VS Code input");
  });

  test("a disabled server's variables need not be set", () => {
    const config = parseConfig(
      "/w/mcp.json",
      '{"mcpServers": {"off": {"command": "${NOPE}", "disabled": true}}}',
      ctx(),
    );
    expect(config.servers[0]).toMatchObject({ enabled: false, command: "${NOPE}" });
  });
});

describe("goose env_keys and the environment a server starts from", () => {
  test("env_keys are taken from the environment; envs wins; a missing one makes that server fail to start, naming it", () => {
    const yaml = [
      "extensions:",
      "  a:",
      "    type: stdio",
      "    cmd: a",
      "    envs: { SHARED: from-envs }",
      "    env_keys: [MY_SECRET, SHARED]",
      "  b:",
      "    type: stdio",
      "    cmd: b",
      "    env_keys: [NOT_EXPORTED]",
    ].join("\n");
    const config = parseConfig("/g/config.yaml", yaml, ctx({ MY_SECRET: "s3cret", SHARED: "env" }));
    const [a, b] = config.servers;
    expect(a?.env).toEqual({ SHARED: "from-envs", MY_SECRET: "s3cret" });
    expect(a?.problem).toBeUndefined();
    expect(b?.problem).toContain("env_keys names NOT_EXPORTED");
    expect(b?.problem).toContain("/g/config.yaml:10");
  });

  test("env_keys fall back to goose's secrets.yaml beside its config (its keyring-off store)", () => {
    const { dir } = testDeps();
    writeFileSync(join(dir, "secrets.yaml"), "KEPT: from-secrets-file\n");
    writeFileSync(
      join(dir, "config.yaml"),
      "extensions:\n  a:\n    type: stdio\n    cmd: a\n    env_keys: [KEPT]\n",
    );
    const config = loadConfig(join(dir, "config.yaml"), ctx());
    expect(config.servers[0]?.env).toEqual({ KEPT: "from-secrets-file" });
  });

  test("inherit_env follows the host: Claude Desktop passes only a safe subset, the others everything; an option overrides", () => {
    const json =
      '{"mcpServers": {"a": {"command": "a"}, "b": {"command": "b", "inherit_env": true}}}';
    const claude = parseConfig("/c/claude_desktop_config.json", json, ctx());
    expect(claude.host).toBe("claude-desktop");
    expect(claude.servers.map((s) => s.inheritEnv)).toEqual([false, true]);
    const cursor = parseConfig("/p/.cursor/mcp.json", json, ctx());
    expect(cursor.host).toBe("cursor");
    expect(cursor.servers.map((s) => s.inheritEnv)).toEqual([true, true]);
    const goose = parseConfig("/g/config.yaml", "extensions:\n  a: {type: stdio, cmd: a}\n", ctx());
    expect(goose.servers[0]?.inheritEnv).toBe(true);
    const off = parseConfig(
      "/g/config.yaml",
      "toolledger: {inherit_env: false}\nextensions:\n  a: {type: stdio, cmd: a}\n",
      ctx(),
    );
    expect(off.servers[0]?.inheritEnv).toBe(false);
  });
});

describe("server kinds", () => {
  test("goose sse is served; frontend and inline_python are kept as kinds that live in goose", () => {
    const yaml = [
      "extensions:",
      "  old: { type: sse, uri: 'http://localhost:9/sse' }",
      "  ui: { type: frontend, name: ui, tools: [{ name: draw }], instructions: x }",
      "  py: { type: inline_python, name: py, code: 'print(1)', dependencies: [mcp] }",
    ].join("\n");
    const config = parseConfig("/g/config.yaml", yaml, ctx());
    expect(config.servers.map((s) => [s.name, s.kind])).toEqual([
      ["old", "sse"],
      ["ui", "frontend"],
      ["py", "inline_python"],
    ]);
    expect(config.warnings).toEqual([]);
  });

  test('Cursor\'s "type": "sse", and a URL ending in /sse without a type, are SSE servers', () => {
    const config = parseConfig(
      "/p/.cursor/mcp.json",
      '{"mcpServers": {"a": {"type": "sse", "url": "http://h/events"}, "b": {"url": "http://h/sse"}, "c": {"url": "http://h/mcp"}}}',
      ctx(),
    );
    expect(config.servers.map((s) => s.kind)).toEqual(["sse", "sse", "streamable_http"]);
  });

  test("VS Code's servers object (with comments and inputs) is read like mcpServers", () => {
    const text =
      '{\n  // comment\n  "inputs": [{"type": "promptString", "id": "k"}],\n  "servers": {\n    "a": {"type": "stdio", "command": "x"}, /* more */\n    "b": {"type": "http", "url": "http://h/mcp"}\n  }\n}\n';
    const config = parseConfig("/w/.vscode/mcp.json", text, ctx());
    expect(config.format).toBe("vscode");
    expect(config.servers.map((s) => [s.name, s.kind, s.source.line])).toEqual([
      ["a", "stdio", 5],
      ["b", "streamable_http", 6],
    ]);
  });
});

describe("names that make one key", () => {
  test("two servers whose names normalise to one key are refused with both names and lines", () => {
    const e = failureIn(
      "/c/mcp.json",
      '{"mcpServers": {\n "mem": {"command": "a"},\n "MEM": {"command": "b"}\n}}',
    );
    expect(e.message).toContain(
      '/c/mcp.json:3:2: mcpServers.MEM: "MEM" and "mem" (line 2) both make the key "mem"',
    );
    const goose = failureIn(
      "/g/config.yaml",
      "extensions:\n  a: {type: stdio, cmd: a, name: Web Search}\n  websearch: {type: stdio, cmd: b}\n",
    );
    expect(goose.message).toContain(
      '"websearch" and "Web Search" (line 2) both make the key "websearch"',
    );
  });

  test("a disabled server does not collide (it is never started)", () => {
    const config = parseConfig(
      "/c/mcp.json",
      '{"mcpServers": {"mem": {"command": "a"}, "MEM": {"command": "b", "disabled": true}}}',
      ctx(),
    );
    expect(config.servers).toHaveLength(2);
  });
});

describe("every option, the same effect in every format", () => {
  const options = {
    available_tools: ["one"],
    expose_unprefixed: true,
    hidden: true,
    timeout: 75,
    start_timeout: 120,
    startup_grace: 7,
    inherit_env: false,
    env_keys: ["K"],
  };
  const comparable = (s: ServerConfig | undefined) => ({
    availableTools: s?.availableTools,
    exposeUnprefixed: s?.exposeUnprefixed,
    hidden: s?.hidden,
    callTimeoutSeconds: s?.callTimeoutSeconds,
    startTimeoutSeconds: s?.startTimeoutSeconds,
    startupGraceSeconds: s?.startupGraceSeconds,
    inheritEnv: s?.inheritEnv,
    env: s?.env,
    enabled: s?.enabled,
  });

  test("mcpServers, VS Code and goose read the toolledger options alike", () => {
    const env = { K: "v" };
    const mcp = parseConfig(
      "/c/mcp.json",
      JSON.stringify({ mcpServers: { s: { command: "x", ...options } } }),
      ctx(env),
    );
    const vscode = parseConfig(
      "/w/.vscode/mcp.json",
      JSON.stringify({ servers: { s: { type: "stdio", command: "x", ...options } } }),
      ctx(env),
    );
    const goose = parseConfig(
      "/g/config.yaml",
      `extensions:\n  s: ${JSON.stringify({ type: "stdio", cmd: "x", ...options })}\n`,
      ctx(env),
    );
    const expected = {
      availableTools: ["one"],
      exposeUnprefixed: true,
      hidden: true,
      callTimeoutSeconds: 75,
      startTimeoutSeconds: 120,
      startupGraceSeconds: 7,
      inheritEnv: false,
      env: { K: "v" },
      enabled: true,
    };
    for (const config of [mcp, vscode, goose]) {
      expect(comparable(config.servers[0])).toEqual(expected);
      expect(config.warnings).toEqual([]);
    }
  });

  test("disabled and enabled mean the same in every format", () => {
    const mcp = parseConfig(
      "/c/mcp.json",
      '{"mcpServers": {"a": {"command": "x", "enabled": false}}}',
      ctx(),
    );
    const goose = parseConfig(
      "/g/config.yaml",
      "extensions:\n  a: {type: stdio, cmd: x, disabled: true}\n",
      ctx(),
    );
    expect([mcp.servers[0]?.enabled, goose.servers[0]?.enabled]).toEqual([false, false]);
  });

  test("file-wide toolledger settings are each server's default; a server's own value wins", () => {
    const config = parseConfig(
      "/c/mcp.json",
      '{"toolledger": {"timeout": 120, "start_timeout": 300}, "mcpServers": {"a": {"command": "x"}, "b": {"command": "y", "timeout": 5}}}',
      ctx(),
    );
    expect(config.servers.map((s) => [s.callTimeoutSeconds, s.startTimeoutSeconds])).toEqual([
      [120, 300],
      [5, 300],
    ]);
  });

  test("V1 protocol_era: the file's setting is each server's default, its own wins, in every format", () => {
    const mcp = parseConfig(
      "/c/mcp.json",
      '{"toolledger": {"protocol_era": "legacy"}, "mcpServers": {"a": {"command": "x"}, "b": {"url": "https://b.example/mcp", "protocol_era": "modern"}}}',
      ctx(),
    );
    expect(mcp.servers.map((s) => s.protocolEra)).toEqual(["legacy", "modern"]);
    const goose = parseConfig(
      "/g/config.yaml",
      "extensions:\n  a: {type: stdio, cmd: x, protocol_era: auto}\n  b: {type: stdio, cmd: y}\n",
      ctx(),
    );
    expect(goose.servers.map((s) => s.protocolEra)).toEqual(["auto", undefined]);
    const e = failure(
      "/c/mcp.json",
      '{"mcpServers": {"a": {"command": "x", "protocol_era": "2026-07-28"}}}',
    );
    expect(e.message).toContain("protocol_era");
    expect(e.message).toContain('must be "auto", "legacy" or "modern"');
  });

  test("issue 20: startup_grace, file-wide and per server, in every format", () => {
    const mcp = parseConfig(
      "/c/mcp.json",
      '{"toolledger": {"startup_grace": 40}, "mcpServers": {"a": {"command": "x"}, "b": {"command": "y", "startup_grace": 2.5}}}',
      ctx(),
    );
    const vscode = parseConfig(
      "/w/.vscode/mcp.json",
      '{"toolledger": {"startup_grace": 40}, "servers": {"a": {"command": "x"}, "b": {"type": "stdio", "command": "y", "startup_grace": 2.5}}}',
      ctx(),
    );
    const goose = parseConfig(
      "/g/config.yaml",
      "toolledger:\n  startup_grace: 40\nextensions:\n  a: {type: stdio, cmd: x}\n  b: {type: stdio, cmd: y, startup_grace: 2.5}\n",
      ctx(),
    );
    for (const config of [mcp, vscode, goose]) {
      expect(config.servers.map((s) => s.startupGraceSeconds)).toEqual([40, 2.5]);
      expect(config.warnings).toEqual([]);
    }
    expect(() =>
      parseConfig("/c/mcp.json", '{"mcpServers": {"a": {"command": "x", "startup_grace": -1}}}'),
    ).toThrow(/mcpServers\.a\.startup_grace: must be a positive number of seconds/);
  });

  test("an unknown option is a warning naming it (with the likely spelling); the file still loads", () => {
    const config = parseConfig(
      "/c/mcp.json",
      '{"toolledger": {"timeuot": 1},\n "mcpServers": {\n "a": {"command": "x", "availableTools": ["t"], "cmd": "y", "autoApprove": []}\n}}',
      ctx(),
    );
    expect(config.servers).toHaveLength(1);
    expect(config.warnings).toEqual([
      "/c/mcp.json:1:17: toolledger.timeuot: unknown setting timeuot; it has no effect (known: timeout, start_timeout, startup_grace, inherit_env, workspace_folder, deferral, deferral_budget, pinning, protocol_era, call_durability, max_definition_kb)",
      "/c/mcp.json:3:24: mcpServers.a.availableTools: unknown option availableTools; it has no effect (did you mean available_tools?)",
      "/c/mcp.json:3:49: mcpServers.a.cmd: unknown option cmd; it has no effect (did you mean command?)",
    ]);
  });
});
