import { describe, expect, it } from "vitest";
import { configRedactor } from "./configRedactor.js";

describe("configRedactor: the secrets written in a host config, redacted as the log does (issue 34)", () => {
  it("env, header, credential argument, URL password and OAuth secret; never a ${VAR} reference", () => {
    const text = JSON.stringify({
      servers: {
        a: {
          command: "npx",
          args: ["server", "--api-key=argkey-123456"],
          env: { TOKEN: "env-secret-123", REF: "${input:token}", LEVEL: "debug" },
        },
        b: {
          type: "http",
          url: "https://user:urlpass-9876@mcp.example.com/mcp",
          headers: { Authorization: "Bearer ${env:TOKEN}", "X-Key": "header-secret-55" },
          oauth: { clientId: "id", clientSecret: "client-secret-77" },
        },
        broken: "not an object",
      },
    });
    const r = configRedactor([text, "{ not json"], { kind: "json", key: "servers" });
    const out = r.redact(text);
    for (const secret of [
      "argkey-123456",
      "env-secret-123",
      "urlpass-9876",
      "header-secret-55",
      "client-secret-77",
    ])
      expect(out).not.toContain(secret);
    expect(out).toContain("${input:token}");
    expect(out).toContain("Bearer ${env:TOKEN}");
    expect(out).toContain('"LEVEL":"debug"');
    expect(out).toContain("[redacted]");
  });

  it("goose's YAML: envs and uri", () => {
    const text = [
      "extensions:",
      "  gh:",
      "    type: stdio",
      "    cmd: npx",
      "    envs:",
      "      GITHUB_TOKEN: ghp_abcdef123456",
      "  remote:",
      "    type: streamable_http",
      "    uri: https://mcp.example.com/mcp?api_key=querykey-4242",
      "",
    ].join("\n");
    const out = configRedactor([text], { kind: "yaml" }).redact(text);
    expect(out).not.toContain("ghp_abcdef123456");
    expect(out).not.toContain("querykey-4242");
    expect(out).toContain("GITHUB_TOKEN: [redacted]");
  });
});
