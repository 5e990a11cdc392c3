import type { McpTool } from "../events/events.js";
import { setOwn } from "../fold/records.js";
import type { RegisteredTool, State } from "../fold/state.js";

const served = new WeakMap<RegisteredTool, { ownerMetaKey: string; tool: McpTool }>();

/**
 * The definition a client or model is served for a registered tool: the tool as its server
 * sent it (R9), named with its wire name (R14, the public name when that fits), and with
 * `_meta[ownerMetaKey]` set to its owner, overwriting the server's value (R4). Built on first
 * use and cached per registered tool, so registration never copies a tool.
 */
export function servedTool(state: State, tool: RegisteredTool): McpTool {
  const cached = served.get(tool);
  if (cached?.ownerMetaKey === state.ownerMetaKey) return cached.tool;
  const meta: Record<string, unknown> = { ...tool.raw._meta };
  // An own property even when the owner key is `__proto__`.
  setOwn(meta, state.ownerMetaKey, tool.owner);
  // Copy, then assign: V8 copies fast but slows down badly when a spread literal redefines a key.
  const definition: McpTool = { ...tool.raw };
  definition.name = tool.wireName;
  definition._meta = meta;
  served.set(tool, { ownerMetaKey: state.ownerMetaKey, tool: definition });
  return definition;
}
