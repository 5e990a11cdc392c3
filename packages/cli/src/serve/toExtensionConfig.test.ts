import { expect, test } from "vitest";
import { parseConfig } from "../config/loadConfig.js";
import { toExtensionConfig } from "./toExtensionConfig.js";

const ctx = { env: {}, home: "/h", cwd: "/c" };

test("a server inherits the gateway's environment per its host, never the gateway's bearer token", () => {
  const env = { PATH: "/bin", MY_KEY: "mine", TOOLLEDGER_TOKEN: "gateway-token-0123456789" };
  const [cursor] = parseConfig(
    "/p/.cursor/mcp.json",
    '{"mcpServers": {"a": {"command": "x"}}}',
    ctx,
  ).servers;
  const inherited = toExtensionConfig(cursor!, env);
  expect(inherited).toMatchObject({ type: "stdio", baseEnv: { PATH: "/bin", MY_KEY: "mine" } });
  expect(JSON.stringify(inherited)).not.toContain("gateway-token");
  const [claude] = parseConfig(
    "/c/claude_desktop_config.json",
    '{"mcpServers": {"a": {"command": "x"}}}',
    ctx,
  ).servers;
  expect(toExtensionConfig(claude!, env)).not.toHaveProperty("baseEnv");
});

test("per-server timeouts and expanded secrets reach the adapter; in-host kinds have nothing to start", () => {
  const config = parseConfig(
    "/g/config.yaml",
    "extensions:\n  a: {type: stdio, cmd: 'run-${TOKEN}', timeout: 2, start_timeout: 9, startup_grace: 4}\n  b: {type: frontend}\n",
    { ...ctx, env: { TOKEN: "t0k3n-secret" } },
  );
  expect(toExtensionConfig(config.servers[0]!, {})).toMatchObject({
    command: "run-t0k3n-secret",
    callTimeoutMs: 2000,
    startTimeoutMs: 9000,
    startupGraceMs: 4000,
    secrets: ["t0k3n-secret"],
  });
  expect(toExtensionConfig(config.servers[1]!, {})).toBeNull();
});
