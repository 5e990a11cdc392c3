import { join } from "node:path";
import type { StandaloneConversation } from "@toolledger/adapters-mcp";
import { listTools } from "@toolledger/core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { REPO, SERVERS } from "../../testing/spawnCli.js";
import { startTestServer, type TestServer } from "../../testing/startTestServer.js";
import { testDeps } from "../../testing/testDeps.js";
import { createOutput } from "../output/output.js";
import { startSession } from "../serve/startSession.js";
import { loadConfig } from "./loadConfig.js";
import { resolveDeferral } from "./resolveDeferral.js";

// The fixture configs of each host, loaded as `serve` loads them, against real servers.
const FIXTURES = join(REPO, "packages", "cli", "fixtures");

let http: TestServer;
let sse: TestServer;
let env: Record<string, string>;

beforeAll(async () => {
  [http, sse] = await Promise.all([startTestServer("http"), startTestServer("sse")]);
  env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/root",
    TOOLLEDGER_SERVERS: SERVERS,
    HTTP_PORT: http.port,
    SSE_PORT: sse.port,
    SSE_KEY: "sse-key-1234",
    HTTP_KEY: "http-key-5678",
    DEMO_API_TOKEN: "demo-token-9999",
    NOTES_TOKEN: "notes-token-0000",
    GOOSE_KEPT_SECRET: "kept-secret-1111",
    EXPORTED_BY_USER: "exported-value",
  };
});
afterAll(async () => {
  await Promise.all([http?.stop(), sse?.stop()]);
});

async function open(file: string) {
  const { deps, stderr } = testDeps({ env });
  const config = loadConfig(file, { env, home: deps.home, cwd: deps.cwd });
  const deferral = resolveDeferral(
    { deferral: undefined, alwaysLoad: undefined },
    {},
    config.fileEnv,
    "serve",
  );
  const started = await startSession(config, deferral, createOutput(deps), { now: deps.now, env });
  return { config, ...started, stderr };
}

async function call(
  session: StandaloneConversation,
  name: string,
  args: Record<string, unknown> = {},
) {
  const outcome = await session.callTool(name, args);
  if (!outcome.ok) throw new Error(outcome.error.message);
  return (outcome.result.content as { text: string }[]).map((c) => c.text).join("");
}

const names = (session: StandaloneConversation) =>
  listTools(session.state, { includeHidden: true }).map((t) => t.publicName);

describe("Claude Desktop (claude_desktop_config.json)", () => {
  test("mcpServers with expose_unprefixed and available_tools; servers get only the safe environment plus env", async () => {
    const { session, failures, config } = await open(
      join(FIXTURES, "claude-desktop", "claude_desktop_config.json"),
    );
    try {
      expect(failures).toEqual([]);
      expect(config.host).toBe("claude-desktop");
      expect(names(session)).toEqual([
        "calculate",
        "environment__get_env",
        "notes__add_note",
        "notes__delete_note",
        "notes__list_notes",
        "notes__read_note",
        "notes__search_notes",
      ]);
      expect(await call(session, "environment__get_env", { name: "API_TOKEN" })).toBe(
        "demo-token-9999",
      );
      expect(await call(session, "environment__get_env", { name: "EXPORTED_BY_USER" })).toBe(
        "(unset)",
      );
      expect(await call(session, "environment__get_env", { name: "HOME" })).toBe(env.HOME);
      expect(await call(session, "calculate", { expression: "6 * 7" })).toContain("42");
    } finally {
      await session.close();
    }
  });
});

describe("Cursor (.cursor/mcp.json)", () => {
  test('stdio, "type": "sse" with a header, streamable HTTP; servers inherit the whole environment', async () => {
    const { session, failures, config } = await open(
      join(FIXTURES, "cursor", ".cursor", "mcp.json"),
    );
    try {
      expect(failures).toEqual([]);
      expect(config.servers.map((s) => [s.name, s.kind])).toEqual([
        ["calculator", "stdio"],
        ["environment", "stdio"],
        ["legacy-sse", "sse"],
        ["remote", "streamable_http"],
      ]);
      expect(config.servers.find((s) => s.name === "remote")?.callTimeoutSeconds).toBe(90);
      expect(names(session)).toEqual(
        expect.arrayContaining([
          "calculator__calculate",
          "environment__get_env",
          "legacy-sse__check_header",
          "legacy-sse__echo",
          "remote__echo",
        ]),
      );
      expect(await call(session, "legacy-sse__echo", { value: "x" })).toBe("sse echo:x");
      expect(await call(session, "legacy-sse__check_header")).toBe("x-api-key present");
      expect(await call(session, "environment__get_env", { name: "EXPORTED_BY_USER" })).toBe(
        "exported-value",
      );
    } finally {
      await session.close();
    }
  });
});

describe("VS Code (.vscode/mcp.json)", () => {
  test("servers with comments and inputs, available_tools, envFile relative to the workspace", async () => {
    const { session, failures, config } = await open(
      join(FIXTURES, "vscode", ".vscode", "mcp.json"),
    );
    try {
      expect(failures).toEqual([]);
      expect(config.format).toBe("vscode");
      expect(names(session).filter((n) => n.startsWith("notes__"))).toEqual([
        "notes__add_note",
        "notes__search_notes",
      ]);
      expect(names(session)).toContain("web__echo");
      expect(await call(session, "environment__get_env", { name: "FROM_ENV_FILE" })).toBe(
        "from the env file",
      );
    } finally {
      await session.close();
    }
  });
});

describe("goose (config.yaml) with every extension type", () => {
  test("stdio, streamable_http and sse served; builtin, platform, frontend and inline_python skipped with a note; env_keys, envs and deferral from the file", async () => {
    const { session, failures, config, stderr } = await open(
      join(FIXTURES, "goose", "config.yaml"),
    );
    try {
      expect(failures).toEqual([]);
      expect(config.servers.map((s) => [s.name, s.kind, s.enabled])).toEqual([
        ["developer", "builtin", true],
        ["todo", "platform", true],
        ["notes", "stdio", true],
        ["environment", "stdio", true],
        ["remote", "streamable_http", true],
        ["legacy", "sse", true],
        ["canvas", "frontend", true],
        ["hello", "inline_python", true],
        ["old", "stdio", false],
      ]);
      expect(config.warnings).toEqual([]);
      for (const skipped of ["developer", "todo", "canvas", "hello"])
        expect(stderr()).toMatch(new RegExp(`skipped: ${skipped} \\(.*config\\.yaml:\\d+\\)`));
      expect(session.state.deferral.mode).toBe("lookup");
      expect(names(session)).toEqual(
        expect.arrayContaining([
          "legacy__echo",
          "remote__echo",
          "notes__add_note",
          "environment__get_env",
        ]),
      );
      expect(names(session).filter((n) => n.startsWith("remote__"))).toEqual(["remote__echo"]);
      await session.enableTools("c1", ["environment__get_env"]);
      expect(await call(session, "environment__get_env", { name: "GOOSE_KEPT_SECRET" })).toBe(
        "kept-secret-1111",
      );
      expect(await call(session, "environment__get_env", { name: "FROM_ENVS" })).toBe(
        "set in envs",
      );
      expect(await call(session, "environment__get_env", { name: "EXPORTED_BY_USER" })).toBe(
        "exported-value",
      );
      expect(stderr()).not.toMatch(/kept-secret|http-key|notes-token/);
    } finally {
      await session.close();
    }
  });
});
