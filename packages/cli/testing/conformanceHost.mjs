#!/usr/bin/env node
// G3/A1: the host side of the conformance suite's client scenarios. The suite runs this with
// its test server's URL; it writes that server into an MCP config as a user would, starts
// `toolledger serve` on it over stdio with the MCP SDK's own client (the way Claude Desktop or
// Cursor run a server), waits for the server's tools, calls each, and exits. OAuth, when the
// server asks for it, is toolledger's: the browser step goes to a headless $BROWSER.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..", "..");
const cli = join(repo, "packages", "cli", "dist", "main.js");
const sdk = createRequire(join(repo, "packages", "adapters-mcp", "package.json"));
const load = (path) => import(pathToFileURL(sdk.resolve(path)).href);
const { Client } = await load("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await load("@modelcontextprotocol/sdk/client/stdio.js");
const { ElicitRequestSchema, ToolListChangedNotificationSchema } = await load(
  "@modelcontextprotocol/sdk/types.js",
);

/** The client ID metadata document URL the suite's CIMD scenario expects (a user's config names it). */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";
const TOOL_WAIT_MS = Number(process.env.CONFORMANCE_TOOL_WAIT_MS ?? 8000);

const serverUrl = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = process.env.MCP_CONFORMANCE_CONTEXT
  ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT)
  : null;
const dir = mkdtempSync(join(tmpdir(), "toolledger-conformance-host-"));

const oauth = { clientMetadataUrl: CLIENT_METADATA_URL };
if (context?.name === "auth/client-credentials-basic") {
  Object.assign(oauth, {
    clientId: context.client_id,
    clientSecret: context.client_secret,
    grant: "client_credentials",
  });
} else if (context?.name === "auth/client-credentials-jwt") {
  const key = join(dir, "client-key.pem");
  writeFileSync(key, context.private_key_pem, { mode: 0o600 });
  Object.assign(oauth, {
    clientId: context.client_id,
    privateKeyFile: key,
    grant: "client_credentials",
    ...(context.signing_algorithm ? { signingAlgorithm: context.signing_algorithm } : {}),
  });
}
const config = join(dir, "mcp.json");
writeFileSync(
  config,
  JSON.stringify({ mcpServers: { suite: { type: "http", url: serverUrl, oauth } } }, null, 2),
);
mkdirSync(join(dir, "config"), { recursive: true });

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [cli, "serve", "--config", config, "--db", join(dir, "sessions.db")],
  env: {
    ...process.env,
    XDG_CONFIG_HOME: join(dir, "config"),
    BROWSER: `${process.execPath} ${join(here, "headlessBrowser.mjs")}`,
  },
  stderr: "inherit",
});
const client = new Client(
  { name: "conformance-host", version: "1.0.0" },
  // SEP-1034: the host applies the schema's defaults to what the user left empty.
  { capabilities: { elicitation: { form: { applyDefaults: true } } } },
);
// SEP-1034: accept with nothing filled in; the SDK applies the schema's defaults.
client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: {} }));
let changed = () => {};
client.setNotificationHandler(ToolListChangedNotificationSchema, async () => changed());
await client.connect(transport);

/** The server's tools: listed now, and again on each list change, until one shows or the wait ends. */
async function serverTools() {
  const deadline = Date.now() + TOOL_WAIT_MS;
  for (;;) {
    const { tools } = await client.listTools();
    const own = tools.filter((t) => t.name !== "enable_tools");
    if (own.length > 0 || Date.now() >= deadline) return own;
    await new Promise((resolve) => {
      changed = resolve;
      setTimeout(resolve, Math.min(500, Math.max(0, deadline - Date.now())));
    });
  }
}

/** Arguments a host's model would give: a number for each number, a word for each string. */
function argumentsFor(tool) {
  const args = {};
  const props = tool.inputSchema?.properties ?? {};
  let n = 2;
  for (const [name, schema] of Object.entries(props)) {
    if (schema.type === "number" || schema.type === "integer") args[name] = n++;
    else if (schema.type === "string") args[name] = "conformance";
    else if (schema.type === "boolean") args[name] = true;
  }
  return args;
}

/** The name toolledger serves an upstream tool under (prefixed with the server's name, `suite`). */
const served = (tools, name) => tools.find((t) => t.name === name || t.name === `suite__${name}`);

const report = { scenario, tools: [], calls: [] };
const tools = await serverTools();
report.tools = tools.map((t) => t.name);
// 0.2.x scenarios that name the calls to make (SEP-2243 custom headers): exactly those.
const calls = context?.toolCalls
  ? context.toolCalls.map((c) => ({ tool: served(tools, c.name), arguments: c.arguments }))
  : tools.map((tool) => ({ tool, arguments: argumentsFor(tool) }));
for (const call of calls) {
  if (!call.tool) continue;
  const result = await client.callTool({ name: call.tool.name, arguments: call.arguments });
  report.calls.push({ name: call.tool.name, isError: result.isError === true });
}
// SEP-2243 standard headers: a host also reads a resource and gets a prompt the server offers.
if (scenario === "http-standard-headers") {
  const { resources } = await client.listResources();
  if (resources[0]) await client.readResource({ uri: resources[0].uri });
  const { prompts } = await client.listPrompts();
  if (prompts[0]) await client.getPrompt({ name: prompts[0].name, arguments: {} });
}
await client.close();
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);
