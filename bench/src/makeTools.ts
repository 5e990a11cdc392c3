import type { McpTool } from "@toolledger/core";
import { pick, seededRandom } from "./random.js";

const VERBS = [
  "create",
  "list",
  "get",
  "update",
  "delete",
  "search",
  "read",
  "write",
  "run",
  "sync",
];
const NOUNS = [
  "issue",
  "file",
  "branch",
  "comment",
  "record",
  "page",
  "task",
  "message",
  "user",
  "query",
];
const PROPS = [
  ["path", "string", "Path of the file, relative to the workspace root."],
  ["query", "string", "Free-text query; matched against titles and bodies."],
  ["limit", "integer", "Maximum number of results to return (1-100)."],
  ["owner", "string", "Account or organisation that owns the repository."],
  ["body", "string", "Markdown body of the item."],
  ["force", "boolean", "Overwrite an existing item without asking."],
  ["id", "string", "Identifier of the item, as returned by the list call."],
  ["tags", "array", "Labels to attach; unknown labels are created."],
] as const;

/**
 * `count` realistic MCP tools for extension number `ext` (a name, a sentence of description,
 * an object schema of 2–5 described properties, some annotations, 1 in 25 app-only).
 * `generation` varies descriptions between fetches, as servers change their lists.
 */
export function makeTools(ext: number, count: number, generation = 0): McpTool[] {
  const random = seededRandom(ext * 7919 + generation * 104729 + 1);
  const tools: McpTool[] = [];
  for (let i = 0; i < count; i++) {
    const verb = VERBS[i % VERBS.length]!;
    const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length]!;
    const name = toolName(i);
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    const n = 2 + pick(random, 4);
    for (let p = 0; p < n; p++) {
      const [prop, type, description] = PROPS[(i + p * 3) % PROPS.length]!;
      properties[prop] =
        type === "array" ? { type, items: { type: "string" }, description } : { type, description };
      if (p === 0) required.push(prop);
    }
    const tool: McpTool = {
      name,
      description: `${verb[0]!.toUpperCase()}${verb.slice(1)} a ${noun} in service ${ext}${generation > 0 ? ` (revision ${generation})` : ""}. Returns the ${noun} as JSON; fails when the caller lacks access.`,
      inputSchema: { type: "object", properties, required, additionalProperties: false },
    };
    if (verb === "list" || verb === "get" || verb === "search" || verb === "read") {
      tool.annotations = { readOnlyHint: true, openWorldHint: false };
    }
    if (isAppOnlyTool(i)) tool._meta = { ui: { visibility: ["app"] } };
    tools.push(tool);
  }
  return tools;
}

/** Raw name of tool `i` (as `makeTools` names it). */
export function toolName(i: number): string {
  const verb = VERBS[i % VERBS.length]!;
  const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length]!;
  return `${verb}_${noun}${i >= VERBS.length * NOUNS.length ? `_${i}` : ""}`;
}

/** Whether tool `i` is app-only (D3) in `makeTools`' output. */
export function isAppOnlyTool(i: number): boolean {
  return i % 25 === 24;
}

/** Arguments that satisfy a `makeTools` tool's input schema (every property set). */
export function exampleArgs(tool: McpTool): Record<string, unknown> {
  const schema = tool.inputSchema as { properties: Record<string, { type: string }> };
  const args: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema.properties)) {
    args[name] =
      prop.type === "integer"
        ? 7
        : prop.type === "boolean"
          ? false
          : prop.type === "array"
            ? ["bench"]
            : "bench";
  }
  return args;
}

/** Raw names and valid arguments of the first 24 tools of upstream server `index`. */
export function callPlan(
  index: number,
  count: number,
): { name: string; args: Record<string, unknown> }[] {
  return makeTools(index, count)
    .slice(0, 24)
    .map((t) => ({ name: t.name, args: exampleArgs(t) }));
}
