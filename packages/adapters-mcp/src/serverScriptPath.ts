import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { StdioExtensionConfig } from "./extensionConfig.js";

/** The MCP servers this package ships (built to `dist/servers/<file>.js`). */
export const SERVER_NAMES = [
  "notes",
  "calculator",
  "paged",
  "changing",
  "faulty",
  "appOnly",
  "cursorLoop",
  "http",
  "leaky",
  "big",
  "sse",
  "environment",
  "slowStart",
  "reference",
  "malformed",
  "shifty",
  "storm",
  "oauthProtected",
  "witness",
  "scenarios",
  "modernOnly",
  "dualEra",
] as const;
export type ServerName = (typeof SERVER_NAMES)[number];

// src/ and dist/ are both one level below the package root. (Not in servers/: the release
// ships dist/servers/notes.js and calculator.js alone.)
const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The built script of a shipped server, to run with `node`. Throws when the package has
 * not been built, naming the command that builds it.
 */
export function serverScriptPath(name: ServerName): string {
  if (!(SERVER_NAMES as readonly string[]).includes(name)) {
    throw new Error(
      `no shipped MCP server named ${JSON.stringify(name)}; known: ${SERVER_NAMES.join(", ")}`,
    );
  }
  const path = join(packageRoot, "dist", "servers", `${name}.js`);
  if (!existsSync(path)) {
    throw new Error(
      `${path} does not exist: build @toolledger/adapters-mcp first (\`pnpm build\` at the workspace root)`,
    );
  }
  return path;
}

/** Stdio configs for the two example servers (a notebook and a calculator), run with this Node. */
export function exampleServers(): StdioExtensionConfig[] {
  return [
    { type: "stdio", name: "notes", command: process.execPath, args: [serverScriptPath("notes")] },
    {
      type: "stdio",
      name: "calculator",
      command: process.execPath,
      args: [serverScriptPath("calculator")],
    },
  ];
}
