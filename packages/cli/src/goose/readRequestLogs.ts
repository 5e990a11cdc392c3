import { readFileSync } from "node:fs";
import { type McpTool, nameToKey } from "@toolledger/core";

/**
 * The tool lists goose sent its model, from its request logs (block/goose
 * providers/utils.rs `RequestLog`: `~/.local/state/goose/logs/llm_request.<n>.jsonl`, first line
 * `{"model_config": …, "input": <provider payload>}`). Payload tools in the OpenAI form
 * (`{type: "function", function: {name, description, parameters}}`), the Anthropic form
 * (`{name, description, input_schema}`) or Google's (`{functionDeclarations: [...]}`), each
 * split into extension and tool at the first `__`. The first definition of a name wins.
 */
export function readRequestLogs(files: readonly string[]): Map<string, McpTool[]> {
  const byOwner = new Map<string, McpTool[]>();
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new RequestLogError(`${file}: cannot read it: ${(error as Error).message}`);
    }
    const first = text.split("\n", 1)[0] ?? "";
    let line: unknown;
    try {
      line = JSON.parse(first);
    } catch {
      throw new RequestLogError(`${file}:1: not a goose request log (its first line is not JSON)`);
    }
    const input = (line as { input?: unknown })?.input;
    const tools =
      input && typeof input === "object" ? (input as { tools?: unknown }).tools : undefined;
    if (!Array.isArray(tools)) {
      throw new RequestLogError(
        `${file}:1: no "input.tools" (goose writes them in llm_request.<n>.jsonl)`,
      );
    }
    for (const t of tools.flatMap(flattenGoogle)) {
      const def = toolOf(t);
      if (!def) continue;
      const i = def.name.indexOf("__");
      if (i <= 0) continue;
      const owner = nameToKey(def.name.slice(0, i));
      const list = byOwner.get(owner) ?? [];
      const raw = def.name.slice(i + 2);
      if (!list.some((x) => x.name === raw)) list.push({ ...def, name: raw });
      byOwner.set(owner, list);
    }
  }
  return byOwner;
}

export class RequestLogError extends Error {
  override readonly name = "RequestLogError";
}

function flattenGoogle(t: unknown): unknown[] {
  const decl = (t as { functionDeclarations?: unknown })?.functionDeclarations;
  return Array.isArray(decl) ? decl : [t];
}

function toolOf(t: unknown): McpTool | null {
  if (!t || typeof t !== "object") return null;
  const o = t as Record<string, unknown>;
  const f =
    o.type === "function" && o.function && typeof o.function === "object"
      ? (o.function as Record<string, unknown>)
      : o;
  if (typeof f.name !== "string") return null;
  const schema = f.parameters ?? f.input_schema ?? { type: "object" };
  return {
    name: f.name,
    ...(typeof f.description === "string" ? { description: f.description } : {}),
    inputSchema: schema,
  };
}
