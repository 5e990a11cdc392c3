import {
  ENABLE_TOOLS_NAME,
  type McpTool,
  type ModelView,
  modelView,
  SEARCH_TOOLS_NAME,
  type State,
} from "@toolledger/core";
import { searchToolsHint } from "../conversation/searchToolsCall.js";
import { rememberJson } from "./knownJson.js";

/** The list a conversation is served, and its JSON (the signature a change is told by). */
export interface GatewayView {
  tools: McpTool[];
  signature: string;
}

/**
 * The served list depends on the registry (extensions, collisions), the deferral config and
 * the enabled set only. A call (C4) folds two events into a new State that keeps all four,
 * so the view is cached by them, not by the State: rebuilding and serialising the list on
 * every call event was most of a relayed call's cost.
 */
const viewCache = new WeakMap<
  object,
  WeakMap<object, WeakMap<object, WeakMap<object, WeakMap<object, GatewayView>>>>
>();

function viewSlot(state: State): WeakMap<object, GatewayView> {
  // P2: what is pinned changes what is served as much as the registry does.
  return level(
    level(level(level(viewCache, state.pinning), state.extensions), state.collisions),
    state.deferral,
  );
}

function level<T extends WeakKey>(map: WeakMap<object, T>, key: object): T {
  let next = map.get(key);
  if (next === undefined) {
    next = new WeakMap() as unknown as T;
    map.set(key, next);
  }
  return next;
}

/**
 * The model view as the gateway serves it (D4): the eager tools plus `enable_tools`, whose
 * description also lists the deferred names, because instructions are fixed at the
 * handshake and many clients never show them to the model. G4: every server's tool says
 * `execution.taskSupport: "optional"`: the gateway runs any call as a task (its server's
 * own task when the server runs them, else the gateway's), and runs a plain call of a tool
 * its server requires a task for as a task on the client's behalf.
 */
export function gatewayTools(state: State): McpTool[] {
  return gatewayView(state).tools;
}

export function gatewayView(state: State): GatewayView {
  const slot = viewSlot(state);
  const cached = slot.get(state.enabled);
  if (cached) return cached;
  const view = modelView(state);
  const tools = view.tools.map((tool) => {
    if (tool._meta?.[state.ownerMetaKey] !== undefined) return optionalTask(tool);
    return withDeferredHint(tool, view);
  });
  const entry = { tools, signature: JSON.stringify(tools) };
  rememberJson(tools, entry.signature);
  slot.set(state.enabled, entry);
  return entry;
}

/**
 * D4/S1: lookup's deferred names go into `enable_tools`' description; search mode's servers
 * summary (never every name) into `search_tools`' (`searchToolsHint`).
 */
function withDeferredHint(tool: McpTool, view: ModelView): McpTool {
  if (view.strategy === "lookup" && tool.name === ENABLE_TOOLS_NAME && view.deferred.length > 0)
    return {
      ...tool,
      description: `${tool.description ?? ""}\n\nDeferred tools: ${view.deferred.join(", ")}`,
    };
  if (view.strategy === "search" && tool.name === SEARCH_TOOLS_NAME) {
    const hint = searchToolsHint(view);
    if (hint) return { ...tool, description: `${tool.description ?? ""}\n\n${hint}` };
  }
  return tool;
}

/** G4: a server's tool as the gateway serves it: callable as a task or not. */
function optionalTask(tool: McpTool): McpTool {
  const execution = tool.execution as Record<string, unknown> | undefined;
  if (execution?.taskSupport === "optional") return tool;
  return { ...tool, execution: { ...execution, taskSupport: "optional" } };
}
