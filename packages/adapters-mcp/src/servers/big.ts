#!/usr/bin/env node
import { Server } from "@modelcontextprotocol/server";
// Test server for large messages: `measure` answers how many characters its `value` has
// (a 12 MB tools/call), `blob` answers `mb` MiB of text (a large reply); `--list-mb N` puts
// an N MiB description in tools/list. It reads messages of up to 256 MiB itself.
// Large lists (V3): `--tools N --tool-kb K` adds N tools `t_000…` with a K KiB description
// each; `--prompts N` and `--resources N` (each `--item-kb K`) offer N prompts `p_000…`, N
// resources `file:///r/000…` and N templates `file:///t/000/{id}…`; `--huge-kb K` adds one
// prompt, one resource and one template of K KiB each. `--delay-ms N` waits before serving.
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { flag, objectSchema, sleep, text, unknownTool } from "./internal/serve.js";

const KIB = 1024;
const MIB = 1024 * KIB;
const listMb = Number(flag("list-mb", "0"));
const toolCount = Number(flag("tools", "0"));
const toolKb = Number(flag("tool-kb", "1"));
const promptCount = Number(flag("prompts", "0"));
const resourceCount = Number(flag("resources", "0"));
const itemKb = Number(flag("item-kb", "0"));
const hugeKb = Number(flag("huge-kb", "0"));

const n3 = (i: number) => String(i).padStart(3, "0");
const filler = (kb: number, label: string) =>
  kb > 0 ? `${label} ${"y".repeat(kb * KIB)}` : `${label}, a small one`;

const tools = [
  {
    name: "measure",
    description: listMb > 0 ? "x".repeat(listMb * MIB) : "Counts the characters of value",
    inputSchema: objectSchema({ value: { type: "string" } }),
  },
  {
    name: "blob",
    description: "Answers mb MiB of text",
    inputSchema: objectSchema({ mb: { type: "number" } }),
  },
  ...Array.from({ length: toolCount }, (_, i) => ({
    name: `t_${n3(i)}`,
    description: filler(toolKb, `Tool ${i}`),
    inputSchema: objectSchema(),
  })),
];
const prompts = [
  ...Array.from({ length: promptCount }, (_, i) => ({
    name: `p_${n3(i)}`,
    description: filler(itemKb, `Prompt ${i}`),
  })),
  ...(hugeKb > 0 ? [{ name: "huge_prompt", description: filler(hugeKb, "Huge prompt") }] : []),
];
const resources = [
  ...Array.from({ length: resourceCount }, (_, i) => ({
    uri: `file:///r/${n3(i)}`,
    name: `r_${n3(i)}`,
    description: filler(itemKb, `Resource ${i}`),
  })),
  ...(hugeKb > 0
    ? [{ uri: "file:///huge", name: "huge_resource", description: filler(hugeKb, "Huge") }]
    : []),
];
const templates = [
  ...Array.from({ length: resourceCount }, (_, i) => ({
    uriTemplate: `file:///t/${n3(i)}/{id}`,
    name: `t_${n3(i)}`,
    description: filler(itemKb, `Template ${i}`),
  })),
  ...(hugeKb > 0
    ? [
        {
          uriTemplate: "file:///huge/{id}",
          name: "huge_template",
          description: filler(hugeKb, "Huge"),
        },
      ]
    : []),
];
const catalog = promptCount > 0 || resourceCount > 0 || hugeKb > 0;

await sleep(Number(flag("delay-ms", "0")));
const server = new Server(
  { name: "big", version: "0.1.0" },
  {
    capabilities: {
      tools: {},
      ...(catalog ? { prompts: {}, resources: {} } : {}),
    },
  },
);
server.setRequestHandler("tools/list", () => ({ tools }) as never);
server.setRequestHandler("tools/call", (req) => {
  const { name } = req.params;
  const args = req.params.arguments ?? {};
  if (name === "measure") return text(`received ${String(args.value ?? "").length} characters`);
  if (name === "blob") return text("b".repeat(Math.round(Number(args.mb ?? 1) * MIB)));
  if (tools.some((t) => t.name === name)) return text(`${name} ran`);
  return unknownTool(name);
});
if (catalog) {
  server.setRequestHandler("prompts/list", () => ({ prompts }));
  server.setRequestHandler("prompts/get", (req) => ({
    messages: [{ role: "user", content: { type: "text", text: `prompt ${req.params.name}` } }],
  }));
  server.setRequestHandler("resources/list", () => ({ resources }));
  server.setRequestHandler("resources/templates/list", () => ({
    resourceTemplates: templates,
  }));
  server.setRequestHandler("resources/read", (req) => ({
    contents: [{ uri: req.params.uri, text: `contents of ${req.params.uri}` }],
  }));
}
await server.connect(new StdioServerTransport(undefined, undefined, { maxBufferSize: 256 * MIB }));
process.stdin.on("end", () => process.exit(0));
