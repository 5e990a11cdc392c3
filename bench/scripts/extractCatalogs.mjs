// Lists the tools of real MCP servers installed from npm (bench devDependencies) with dummy
// credentials, offline, and writes bench/fixtures/toolCatalogs.json: each server's package,
// version and command, and its tools as `tools/list` returned them.
// Run after `pnpm install`: node bench/scripts/extractCatalogs.mjs
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "package.json"));
// Tools exactly as listed: the SDK's own result schema would refuse some real servers' schemas.
const { z } = await import(
  createRequire(require.resolve("@modelcontextprotocol/sdk/package.json")).resolve("zod")
);
const AnyList = z.looseObject({ tools: z.array(z.any()), nextCursor: z.string().optional() });
const scratch = mkdtempSync(join(tmpdir(), "toolledger-catalogs-"));

/** server key → package, extra args, dummy env (no value is a real credential). */
export const SERVERS = [
  { key: "everything", pkg: "@modelcontextprotocol/server-everything", args: ["stdio"] },
  { key: "filesystem", pkg: "@modelcontextprotocol/server-filesystem", args: [scratch] },
  {
    key: "memory",
    pkg: "@modelcontextprotocol/server-memory",
    env: { MEMORY_FILE_PATH: join(scratch, "memory.json") },
  },
  {
    key: "github",
    pkg: "@modelcontextprotocol/server-github",
    env: { GITHUB_PERSONAL_ACCESS_TOKEN: "dummy" },
  },
  {
    key: "slack",
    pkg: "@modelcontextprotocol/server-slack",
    env: { SLACK_BOT_TOKEN: "xoxb-dummy", SLACK_TEAM_ID: "T0DUMMY" },
  },
  {
    key: "google_maps",
    pkg: "@modelcontextprotocol/server-google-maps",
    env: { GOOGLE_MAPS_API_KEY: "dummy" },
  },
  {
    key: "brave_search",
    pkg: "@modelcontextprotocol/server-brave-search",
    env: { BRAVE_API_KEY: "dummy" },
  },
  { key: "sequential_thinking", pkg: "@modelcontextprotocol/server-sequential-thinking" },
  {
    key: "puppeteer",
    pkg: "@modelcontextprotocol/server-puppeteer",
    env: { PUPPETEER_SKIP_DOWNLOAD: "1" },
  },
  { key: "notion", pkg: "@notionhq/notion-mcp-server", env: { NOTION_TOKEN: "ntn_dummy" } },
  { key: "playwright", pkg: "@playwright/mcp", args: ["--headless"] },
];

const out = [];
for (const s of SERVERS) {
  const manifest = JSON.parse(readFileSync(require.resolve(`${s.pkg}/package.json`), "utf8"));
  const bin = typeof manifest.bin === "string" ? manifest.bin : Object.values(manifest.bin)[0];
  const script = join(dirname(require.resolve(`${s.pkg}/package.json`)), bin);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script, ...(s.args ?? [])],
    env: { PATH: process.env.PATH ?? "", HOME: scratch, ...(s.env ?? {}) },
    stderr: "ignore",
  });
  const client = new Client({ name: "toolledger-catalog-extract", version: "1.0.0" });
  await client.connect(transport);
  const tools = [];
  let cursor;
  do {
    const page = await client.request(
      { method: "tools/list", params: cursor ? { cursor } : {} },
      AnyList,
    );
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  await client.close();
  out.push({
    key: s.key,
    source: {
      package: s.pkg,
      version: manifest.version,
      command: `npx ${s.pkg}@${manifest.version}${s.args && s.key !== "filesystem" ? ` ${s.args.join(" ")}` : s.key === "filesystem" ? " <dir>" : ""}`,
      env: Object.keys(s.env ?? {}).filter(
        (k) => k !== "MEMORY_FILE_PATH" && k !== "PUPPETEER_SKIP_DOWNLOAD",
      ),
    },
    tools,
  });
  process.stderr.write(`${s.key}: ${tools.length} tools\n`);
}
const file = join(here, "..", "fixtures", "toolCatalogs.json");
writeFileSync(
  file,
  `${JSON.stringify({ note: "tools/list of real MCP servers from npm, listed offline with dummy credentials by bench/scripts/extractCatalogs.mjs", servers: out }, null, 1)}\n`,
);
process.stderr.write(`wrote ${file}\n`);
