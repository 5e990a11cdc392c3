import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { CliError } from "../program/cliError.js";
import { toExtensionConfig } from "../serve/toExtensionConfig.js";
import { parseConfig } from "./loadConfig.js";

// A1: a server's `oauth` object, the same names and effect in every config format.
const OAUTH = {
  clientId: "my-client",
  clientSecret: "${LINEAR_SECRET}",
  clientMetadataUrl: "https://example.com/toolledger.json",
  scopes: ["read", "write"],
  callbackPort: 8765,
};
const context = {
  env: { LINEAR_SECRET: "s3cr3t-value-from-env" },
  home: "/home/u",
  cwd: "/",
};

function failure(file: string, text: string): CliError {
  try {
    parseConfig(file, text, context);
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error("expected the config to be refused");
}

describe("A1 the oauth object in every format", () => {
  const formats: [string, string][] = [
    [
      "/c/mcp.json",
      JSON.stringify({
        mcpServers: { linear: { url: "https://mcp.linear.app/mcp", oauth: OAUTH } },
      }),
    ],
    [
      "/c/.vscode/mcp.json",
      JSON.stringify({
        servers: { linear: { type: "http", url: "https://mcp.linear.app/mcp", oauth: OAUTH } },
      }),
    ],
    [
      "/c/config.yaml",
      [
        "extensions:",
        "  linear:",
        "    type: streamable_http",
        "    uri: https://mcp.linear.app/mcp",
        "    oauth:",
        "      clientId: my-client",
        "      clientSecret: ${LINEAR_SECRET}",
        "      clientMetadataUrl: https://example.com/toolledger.json",
        "      scopes: [read, write]",
        "      callbackPort: 8765",
        "",
      ].join("\n"),
    ],
  ];

  test.each(formats)(
    "%s: read the same, the secret expanded and counted a secret",
    (file, text) => {
      const config = parseConfig(file, text, context);
      const server = config.servers[0]!;
      expect(server.oauth).toEqual({
        clientId: "my-client",
        clientSecret: "s3cr3t-value-from-env",
        clientMetadataUrl: "https://example.com/toolledger.json",
        scopes: ["read", "write"],
        callbackPort: 8765,
      });
      expect(server.secrets).toContain("s3cr3t-value-from-env");
      expect(config.warnings).toEqual([]);
      const ext = toExtensionConfig(server, {});
      expect(ext).toMatchObject({ type: "streamable_http", oauth: server.oauth });
    },
  );

  test("Cursor's `auth` object is read as oauth (its users' servers keep working behind the gateway)", () => {
    const config = parseConfig(
      "/c/mcp.json",
      JSON.stringify({
        mcpServers: {
          pipes: {
            url: "https://pipes.example.com/mcp",
            auth: { CLIENT_ID: "abc", CLIENT_SECRET: "${LINEAR_SECRET}", scopes: ["openid"] },
          },
        },
      }),
      context,
    );
    expect(config.servers[0]!.oauth).toEqual({
      clientId: "abc",
      clientSecret: "s3cr3t-value-from-env",
      scopes: ["openid"],
    });
    expect(config.warnings).toEqual([]);
  });

  test("scopes as one space-separated string; client credentials with a private key file", () => {
    const dir = mkdtempSync(join(tmpdir(), "toolledger-oauth-config-"));
    writeFileSync(
      join(dir, "key.pem"),
      "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49\n-----END PRIVATE KEY-----\n",
    );
    const config = parseConfig(
      join(dir, "mcp.json"),
      JSON.stringify({
        mcpServers: {
          m2m: {
            url: "https://m2m.example.com/mcp",
            oauth: {
              clientId: "svc",
              grant: "client_credentials",
              privateKeyFile: join(dir, "key.pem"),
              signingAlgorithm: "ES256",
              scopes: "read write",
            },
          },
        },
      }),
      context,
    );
    expect(config.servers[0]!.oauth).toMatchObject({
      clientId: "svc",
      grant: "client_credentials",
      scopes: ["read", "write"],
      signingAlgorithm: "ES256",
      privateKey: expect.stringContaining("BEGIN PRIVATE KEY"),
    });
  });

  test("problems are said with file, line and field; an unknown key and oauth on a stdio server are warnings", () => {
    const bad = failure(
      "/c/mcp.json",
      JSON.stringify(
        {
          mcpServers: {
            a: { url: "https://a.example.com/mcp", oauth: { callbackPort: 70000 } },
            b: {
              url: "https://b.example.com/mcp",
              oauth: { clientMetadataUrl: "http://x.example/doc" },
            },
            c: { url: "https://c.example.com/mcp", oauth: { grant: "client_credentials" } },
            d: { url: "https://d.example.com/mcp", oauth: { grant: "password" } },
          },
        },
        null,
        2,
      ),
    );
    expect(bad.message).toContain(
      "mcpServers.a.oauth.callbackPort: must be a port from 1 to 65535",
    );
    expect(bad.message).toContain(
      "mcpServers.b.oauth.clientMetadataUrl: must be an https:// URL with a path",
    );
    expect(bad.message).toContain(
      "mcpServers.c.oauth.grant: the client_credentials grant needs oauth.clientId",
    );
    expect(bad.message).toContain(
      'mcpServers.d.oauth.grant: must be "authorization_code" or "client_credentials"',
    );
    expect(bad.message).toMatch(/\/c\/mcp\.json:\d+:\d+: mcpServers\.a\.oauth\.callbackPort/);

    const config = parseConfig(
      "/c/mcp.json",
      JSON.stringify({
        mcpServers: {
          web: { url: "https://w.example.com/mcp", oauth: { clientID: "typo" } },
          local: { command: "node", args: ["s.js"], oauth: { clientId: "x" } },
        },
      }),
      context,
    );
    expect(config.warnings.join("\n")).toContain("unknown oauth option clientID; it has no effect");
    expect(config.warnings.join("\n")).toContain(
      "oauth applies to HTTP and SSE servers only; it has no effect on a stdio server",
    );
    expect(config.servers.map((s) => s.oauth)).toEqual([{}, undefined]);
  });
});
