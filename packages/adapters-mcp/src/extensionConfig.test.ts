import { describe, expect, it } from "vitest";
import { configFingerprint, describeConfig, type ExtensionConfig } from "./extensionConfig.js";

const stdio: ExtensionConfig = {
  type: "stdio",
  name: "gh",
  command: "node",
  args: ["server.js", "--flag value"],
  env: { GITHUB_TOKEN: "ghp_secret123" },
};
const http: ExtensionConfig = {
  type: "streamable_http",
  name: "remote",
  url: "http://127.0.0.1:9/mcp",
  headers: { Authorization: "Bearer tok_secret456" },
};

describe("configFingerprint (R6: secrets only hashed)", () => {
  it("never contains an env or header value", () => {
    expect(configFingerprint(stdio)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(configFingerprint(stdio)).not.toContain("ghp_secret123");
    expect(configFingerprint(http)).not.toContain("tok_secret456");
  });

  it("changes when a secret value changes, so a rotated token replaces the extension", () => {
    const rotated = { ...stdio, env: { GITHUB_TOKEN: "ghp_other" } };
    expect(configFingerprint(rotated)).not.toBe(configFingerprint(stdio));
    const rotatedHeader = { ...http, headers: { Authorization: "Bearer other" } };
    expect(configFingerprint(rotatedHeader)).not.toBe(configFingerprint(http));
  });

  it("ignores the order of env and header names, and the registry-only fields", () => {
    const a: ExtensionConfig = { type: "stdio", name: "x", command: "c", env: { A: "1", B: "2" } };
    const b: ExtensionConfig = {
      type: "stdio",
      name: "y",
      command: "c",
      env: { B: "2", A: "1" },
      exposeUnprefixed: true,
    };
    expect(configFingerprint(a)).toBe(configFingerprint(b));
  });

  it("tells commands, arguments, cwd and URLs apart", () => {
    const base: ExtensionConfig = { type: "stdio", name: "x", command: "c", args: ["a"] };
    const variants: ExtensionConfig[] = [
      { ...base, command: "d" },
      { ...base, args: ["b"] },
      { ...base, cwd: "/tmp" },
      { type: "streamable_http", name: "x", url: "http://127.0.0.1:1/mcp" },
      { type: "streamable_http", name: "x", url: "http://127.0.0.1:2/mcp" },
    ];
    const prints = new Set([base, ...variants].map(configFingerprint));
    expect(prints.size).toBe(variants.length + 1);
  });
});

describe("describeConfig", () => {
  it("names env and header names but never their values", () => {
    expect(describeConfig(stdio)).toBe(
      'command `node server.js "--flag value"` (env: GITHUB_TOKEN)',
    );
    expect(describeConfig(http)).toBe("url http://127.0.0.1:9/mcp (headers: Authorization)");
  });
});
