import { pathToFileURL } from "node:url";
import { ADAPTERS } from "./spawnCli.js";

/** What the scripted client does, in order, after listing the tools. */
export type ClientStep =
  | { call: string; args?: Record<string, unknown> }
  | { sleepMs: number }
  /** Waits until this wall-clock time (epoch ms): lines up clients in different processes. */
  | { sleepUntil: number }
  | { copy: string; to: string }
  /** Lists the tools again (into `tools`) once `name` is among them, or after 30 s. */
  | { listUntil: string };

/** One step's record in the client's output. */
export interface ClientStepResult {
  call?: string;
  result?: { content?: { type: string; text?: string }[]; isError?: boolean };
  error?: string;
}

export interface ClientOutput {
  tools: string[];
  steps: ClientStepResult[];
  /** How many notifications/tools/list_changed the gateway sent. */
  listChanged: number;
}

/**
 * A downstream MCP client run as its own process (the adapters' ExtensionConnection: the MCP
 * SDK's Client underneath): connects to `target`, lists the tools, runs `steps` (tool calls,
 * pauses, file copies taken while the gateway still runs) and prints what it saw as JSON.
 * Usage: `node client.mjs '{"target": …, "steps": […]}'`.
 */
export function scriptedClientScript(): string {
  return `
import { copyFileSync, existsSync } from "node:fs";
import { ExtensionConnection, fetchTools } from ${JSON.stringify(pathToFileURL(ADAPTERS).href)};
const { target, steps } = JSON.parse(process.argv[2]);
let listChanged = 0;
const c = await ExtensionConnection.connect({ name: "gateway", ...target }, { connectTimeoutMs: 30000, onListChanged: () => listChanged++ });
const out = { tools: (await fetchTools(c, { requestTimeoutMs: 30000, maxPages: 10 })).tools.map((t) => t.name), steps: [] };
for (const step of steps) {
  if (step.sleepMs !== undefined) {
    await new Promise((r) => setTimeout(r, step.sleepMs));
  } else if (step.sleepUntil !== undefined) {
    await new Promise((r) => setTimeout(r, Math.max(0, step.sleepUntil - Date.now())));
  } else if (step.listUntil !== undefined) {
    for (let i = 0; i < 300 && !out.tools.includes(step.listUntil); i++) {
      await new Promise((r) => setTimeout(r, 100));
      out.tools = (await fetchTools(c, { requestTimeoutMs: 30000, maxPages: 10 })).tools.map((t) => t.name);
    }
  } else if (step.copy !== undefined) {
    if (existsSync(step.copy)) copyFileSync(step.copy, step.to);
  } else {
    try {
      out.steps.push({ call: step.call, result: await c.callTool(step.call, step.args ?? {}, { timeoutMs: 30000 }) });
    } catch (error) {
      out.steps.push({ call: step.call, error: error.message });
    }
  }
}
out.listChanged = listChanged;
await c.close();
process.stdout.write(JSON.stringify(out));
`;
}

/** A stdio target that runs `command` with its stderr appended to `stderrFile` (raw, whole). */
export function withStderrTo(
  stderrFile: string,
  command: string,
  args: readonly string[],
  env: Record<string, string> = {},
): { type: "stdio"; command: string; args: string[]; env: Record<string, string> } {
  return {
    type: "stdio",
    command: "/bin/sh",
    args: ["-c", 'exec "$@" 2>>"$TOOLLEDGER_TEST_STDERR"', "sh", command, ...args],
    env: { ...env, TOOLLEDGER_TEST_STDERR: stderrFile },
  };
}
