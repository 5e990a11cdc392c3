import type { CallToolResult } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionConfig } from "../extensionConfig.js";
import { everything, shipped } from "../testing/fixtures.js";
import { serveOverStdio } from "../testing/serveCli.js";

// R14 through the real gateway process (`toolledger serve`), read by the MCP SDK's own
// client: the ordinary config (server-everything under a long name) and a server with
// dotted names.

const LONG = "companyinternaleverythingserverforintegrationtesting";
const PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** `serve` with deferral off; `outerPrefixBudget` is `--name-prefix <length>` (R14). */
async function gateway(extensions: ExtensionConfig[], extra: { outerPrefixBudget?: number } = {}) {
  const served = await serveOverStdio(extensions, [
    "--deferral",
    "off",
    ...(extra.outerPrefixBudget ? ["--name-prefix", String(extra.outerPrefixBudget)] : []),
  ]);
  cleanup.push(() => served.close());
  return served.client;
}

const textOf = (result: unknown) =>
  ((result as CallToolResult).content as { text: string }[]).map((c) => c.text).join("");

describe("R14 the gateway serves names every model API accepts", () => {
  it("R14 server-everything under a 51-character extension name: every served name fits, and a renamed tool is called by its wire name", async () => {
    const client = await gateway([everything(LONG)]);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(5);
    for (const t of tools) expect(t.name).toMatch(PATTERN);
    // The example: 75 characters as a public name.
    const annotated = tools.find((t) => t.name.includes("get-annotated-message"));
    expect(annotated?.name).toMatch(
      /^companyinternaleverythingserverf__get-annotated-message_[0-9a-z]{8}$/,
    );
    expect(annotated?._meta).toMatchObject({ goose_extension: LONG });
    // Names that fit are unchanged.
    expect(tools.map((t) => t.name)).toContain(`${LONG}__echo`);
    const sum = tools.find((t) => t.name.includes("get-sum"))!;
    expect(textOf(await client.callTool({ name: sum.name, arguments: { a: 2, b: 3 } }))).toContain(
      "5",
    );
  });

  it("R14 with an outer-prefix budget every served name leaves room for the client's prefix, and calls still reach the server", async () => {
    const client = await gateway([everything(LONG)], {
      outerPrefixBudget: "mcp__toolledger__".length,
    });
    const { tools } = await client.listTools();
    for (const t of tools) expect(`mcp__toolledger__${t.name}`).toMatch(PATTERN);
    const echo = tools.find((t) => t.name.includes("__echo"))!;
    expect(echo.name).not.toBe(`${LONG}__echo`);
    expect(
      textOf(await client.callTool({ name: echo.name, arguments: { message: "hi" } })),
    ).toContain("hi");
  });

  it("R14 an unprefixed server's dotted names are served as wire names the SDK client can call", async () => {
    const client = await gateway([
      {
        ...shipped("files", "paged", ["--names", "files.read,café,plain"]),
        exposeUnprefixed: true,
      },
    ]);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain("plain");
    for (const name of names) expect(name).toMatch(PATTERN);
    const read = names.find((n) => n.startsWith("files_read_"))!;
    expect(read).toMatch(/^files_read_[0-9a-z]{8}$/);
    // The server gets its own name back.
    expect(textOf(await client.callTool({ name: read, arguments: { value: "x" } }))).toBe(
      "files.read:x",
    );
    const cafe = names.find((n) => n.startsWith("caf__"))!;
    expect(textOf(await client.callTool({ name: cafe, arguments: { value: "y" } }))).toBe("café:y");
  });
});
