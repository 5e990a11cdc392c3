import { nameToKey } from "@toolledger/core";

/**
 * The owner and the tool of a goose tool name as goose splits them (R5): the owner in the
 * tool's `_meta.goose_extension` when the request carries it (extension_manager.rs
 * `get_tool_owner`, TOOL_EXTENSION_META_KEY), else the part before the first `__`. A name
 * without `__` and without the metadata has no owner (an unprefixed or unknown tool).
 */
export function splitToolName(
  name: string,
  meta: Record<string, unknown> | null,
): { owner: string | null; tool: string } {
  const fromMeta = meta?.goose_extension;
  const i = name.indexOf("__");
  if (typeof fromMeta === "string" && fromMeta !== "") {
    const owner = nameToKey(fromMeta);
    const prefix = i === -1 ? null : name.slice(0, i);
    return {
      owner,
      tool: prefix !== null && nameToKey(prefix) === owner ? name.slice(i + 2) : name,
    };
  }
  if (i <= 0) return { owner: null, tool: name };
  return { owner: nameToKey(name.slice(0, i)), tool: name.slice(i + 2) };
}

/**
 * goose's platform extensions (agents/extension.rs PLATFORM_EXTENSIONS and the older
 * `platform__*` tools of agents/platform_tools.rs): kind `platform`, so eager under D4.
 */
export const GOOSE_PLATFORM_EXTENSIONS: ReadonlySet<string> = new Set([
  "platform",
  "extensionmanager",
  "todo",
  "chatrecall",
  "skills",
  "dynamic_task",
  "subagent",
  "summon",
  "code_execution",
  "apps",
  "tom",
]);
