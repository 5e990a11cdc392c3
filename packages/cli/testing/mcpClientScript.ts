import { pathToFileURL } from "node:url";
import { ADAPTERS } from "./spawnCli.js";

/**
 * A downstream MCP client, run as its own process: the adapters' ExtensionConnection (the
 * MCP SDK's Client underneath) connects to `toolledger serve` over stdio or HTTP, drives a
 * short conversation and prints what it saw as JSON. It runs on the built packages, as a
 * user's MCP client would.
 */
export function mcpClientScript(): string {
  return `
import { ExtensionConnection, fetchTools } from ${JSON.stringify(pathToFileURL(ADAPTERS).href)};
const target = JSON.parse(process.argv[2]);
let listChanged = 0;
const c = await ExtensionConnection.connect({ name: "gateway", ...target }, { onListChanged: () => listChanged++, connectTimeoutMs: 20000 });
const limits = { timeoutMs: 20000 };
const names = async () => (await fetchTools(c, { requestTimeoutMs: 20000, maxPages: 10 })).tools.map((t) => t.name);
const out = { instructions: c.instructions ?? null };
out.before = await names();
out.refused = await c.callTool("notes__add_note", { title: "a", body: "b" }, limits);
out.enabled = await c.callTool("enable_tools", { names: ["notes__add_note"] }, limits);
out.failedEnable = await c.callTool("enable_tools", { names: ["notes__add_notes"] }, limits);
out.after = await names();
out.call = await c.callTool("notes__add_note", { title: "groceries", body: "eggs" }, limits);
await c.callTool("enable_tools", { names: ["calculator__calculate"] }, limits);
out.calc = await c.callTool("calculator__calculate", { expression: "6 * 7" }, limits);
await new Promise((r) => setTimeout(r, 200));
out.listChanged = listChanged;
out.stderr = c.stderrTail;
await c.close();
process.stdout.write(JSON.stringify(out));
`;
}
