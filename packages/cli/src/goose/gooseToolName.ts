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
 * goose's platform extensions (agents/platform_extensions/mod.rs PLATFORM_EXTENSIONS, earlier
 * agents/extension.rs, and the older `platform__*` tools of agents/platform_tools.rs): kind
 * `platform`, so eager under D4.
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
  "developer",
  "analyze",
  "browser",
]);

/**
 * The platform extensions whose tools goose serves without a prefix (`shell`, not
 * `developer__shell`), owned through `_meta.goose_extension`: PLATFORM_EXTENSIONS entries with
 * `unprefixed_tools: true`, applied to a `platform` or `builtin` config of that name
 * (agents/extension_manager.rs `is_unprefixed_extension`). R3's `exposeUnprefixed`.
 */
export const GOOSE_UNPREFIXED_EXTENSIONS: ReadonlySet<string> = new Set([
  "developer",
  "analyze",
  "summon",
  "code_execution",
]);

/** Whether goose serves this extension's tools unprefixed, by its config's kind and key. */
export function servedUnprefixed(kind: string, key: string): boolean {
  return (kind === "platform" || kind === "builtin") && GOOSE_UNPREFIXED_EXTENSIONS.has(key);
}
