import type { CallToolResult } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { openStandaloneConversation } from "../conversation/standaloneConversation.js";
import { shipped } from "../testing/fixtures.js";
import { serveOverStdio } from "../testing/serveCli.js";

// Issue 10.3 (R9): a server that lists every malformed tool shape next to good tools. The
// MCP SDK's own client, through the real gateway process (`toolledger serve`), must keep working.

const MALFORMED = [
  "empty_schema",
  "untyped_schema",
  "array_schema",
  "string_annotations",
  "string_hint",
  "null_property",
  "required_string",
  "string_output",
  "bad_icon",
  "bad_execution",
  "no_schema",
];

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function gatewayClient(deferral: { mode: "off" | "lookup"; alwaysLoad?: string[] }) {
  const served = await serveOverStdio(
    [shipped("bad", "malformed")],
    ["--deferral", deferral.mode, "--always-load", (deferral.alwaysLoad ?? []).join(",")],
  );
  cleanup.push(() => served.close());
  return { client: served.client, stderr: served.stderr };
}

const textOf = (result: unknown) =>
  ((result as CallToolResult).content as { text: string }[]).map((c) => c.text).join("");

describe("issue 10.3 a malformed tool never hides the others from SDK clients", () => {
  it("R9 the SDK client's listTools works through the gateway and lists only the valid tools", async () => {
    const { client, stderr } = await gatewayClient({ mode: "off" });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["bad__add", "bad__echo"]);
    expect(await client.callTool({ name: "bad__add", arguments: { a: 2, b: 3 } })).toMatchObject({
      content: [{ type: "text", text: "5" }],
    });
    // The gateway reports each rejected tool with its reason when it starts.
    for (const name of MALFORMED)
      expect(stderr()).toContain(`tool "${name}" is not a valid MCP tool`);
    expect(stderr()).toContain("inputSchema.type");
  });

  it("R9/D5 in lookup mode, asking to enable a malformed tool enables nothing and every later listTools still works", async () => {
    const { client } = await gatewayClient({ mode: "lookup" });
    const before = await client.listTools();
    expect(before.tools.map((t) => t.name)).toEqual(["enable_tools"]);
    const enable = before.tools[0]!;
    expect(enable.description).toContain("bad__echo");
    expect(enable.description).not.toContain("empty_schema");
    const refused = await client.callTool({
      name: "enable_tools",
      arguments: { names: ["bad__empty_schema", "bad__string_annotations"] },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('"bad__empty_schema": unknown tool');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["enable_tools"]);
    const enabled = await client.callTool({
      name: "enable_tools",
      arguments: { names: ["bad__echo"] },
    });
    expect(enabled.isError).toBeFalsy();
    const after = await client.listTools();
    expect(after.tools.map((t) => t.name)).toEqual(["bad__echo", "enable_tools"]);
    expect(await client.callTool({ name: "bad__echo", arguments: { text: "hi" } })).toMatchObject({
      content: [{ type: "text", text: "hi" }],
    });
  });

  it("R9 each rejected tool is a rejected_tool diagnostic with its reason; the rest of the server is served", async () => {
    const session = await openStandaloneConversation();
    cleanup.push(() => session.close());
    await session.addExtension(shipped("bad", "malformed"));
    expect(session.listTools().map((t) => t.publicName)).toEqual(["bad__add", "bad__echo"]);
    const rejected = session.diagnostics().filter((d) => d.kind === "rejected_tool");
    expect(rejected.map((d) => (d.kind === "rejected_tool" ? d.rawName : "")).sort()).toEqual(
      [...MALFORMED].sort(),
    );
    const reason = (raw: string) =>
      rejected.find((d) => d.kind === "rejected_tool" && d.rawName === raw)?.message;
    expect(reason("empty_schema")).toMatch(/inputSchema\.type: /);
    expect(reason("string_annotations")).toMatch(/annotations: /);
    expect(reason("string_hint")).toMatch(/annotations\.readOnlyHint: /);
    expect(reason("null_property")).toMatch(/inputSchema\.properties\.a: /);
  });
});
