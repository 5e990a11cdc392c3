import { classifyTool } from "../deferral/classifyTool.js";
import { currentStrategy } from "../deferral/currentStrategy.js";
import { ENABLE_TOOLS_NAME } from "../deferral/modelView.js";
import type { State } from "../fold/state.js";
import {
  type ResolvedTool,
  type ResolveOptions,
  resolveTool,
  stripMangling,
} from "../naming/resolveTool.js";
import { quarantineMessage } from "../pinning/quarantineMessage.js";
import { downExtension } from "../registry/downExtension.js";
import { SEARCH_TOOLS_NAME } from "../search/searchPrompt.js";

/** The built-in tools: the host answers them itself (no server owns them). */
export type BuiltinName = typeof ENABLE_TOOLS_NAME | typeof SEARCH_TOOLS_NAME;

/** D4/D5/S1: `enable_tools` while deferral is on, `search_tools` in search mode. */
export interface BuiltinCall {
  ok: true;
  builtin: true;
  publicName: BuiltinName;
  wireName: BuiltinName;
  /** Empty: no extension owns the built-in. */
  extension: "";
  rawName: BuiltinName;
  recovered: boolean;
}

export type CheckCallResult =
  | (ResolvedTool & { builtin?: false })
  | BuiltinCall
  | {
      ok: false;
      error: {
        code:
          | "UNKNOWN_TOOL"
          | "AMBIGUOUS_TOOL"
          | "APP_ONLY_TOOL"
          | "TOOL_NOT_ENABLED"
          | "EXTENSION_UNAVAILABLE"
          | "TOOL_AWAITS_APPROVAL"
          | "TOOL_REJECTED";
        name: string;
        message: string;
        suggestions: string[];
      };
    };

/** Why a call may not be made now, as the model is told it (close names, what to enable). */
export type CallRefusal = Extract<CheckCallResult, { ok: false }>["error"];

/**
 * R13 + D3 + D9 + P2: may the model call `name` now? Resolves the owner and raw name; refuses
 * app-only tools and deferred tools that are not enabled, and a name of an extension that
 * is down (its tools left with its failed fetch) or has not started (nothing of it listed
 * yet) with why, instead of "unknown tool" and another extension's close names. Permission checks stay the host's.
 */
export function checkCall(
  state: State,
  name: string,
  options: ResolveOptions = {},
): CheckCallResult {
  const strategy = state.deferral.mode === "off" ? "off" : currentStrategy(state);
  if (strategy !== "off") {
    // The model view offers the built-ins while deferral is on, and they win over registry
    // tools of their names (D4, S1); R13's mangled forms reach them too.
    const stripped = stripMangling(name);
    const builtin =
      name === ENABLE_TOOLS_NAME || stripped === ENABLE_TOOLS_NAME
        ? ENABLE_TOOLS_NAME
        : strategy === "search" && (name === SEARCH_TOOLS_NAME || stripped === SEARCH_TOOLS_NAME)
          ? SEARCH_TOOLS_NAME
          : null;
    if (builtin) {
      return {
        ok: true,
        builtin: true,
        publicName: builtin,
        wireName: builtin,
        extension: "",
        rawName: builtin,
        recovered: name !== builtin,
      };
    }
  }
  const resolved = resolveTool(state, name, options);
  if (!resolved.ok) {
    const down =
      resolved.error.code === "UNKNOWN_TOOL" ? downExtension(state, name, options) : null;
    if (!down) return resolved;
    if (down.fetch.status === "never") {
      return {
        ok: false,
        error: {
          code: "EXTENSION_UNAVAILABLE",
          name,
          message: `tool ${name} cannot be called: extension ${JSON.stringify(down.name)} has not started (none of its tools has been listed yet)`,
          suggestions: [],
        },
      };
    }
    // Hosts record a lost server as `extension "<name>" is unavailable: <why>`.
    const lead = `extension ${JSON.stringify(down.name)} is unavailable: `;
    const why = down.fetch.error ?? "its tools could not be fetched";
    return {
      ok: false,
      error: {
        code: "EXTENSION_UNAVAILABLE",
        name,
        message: `tool ${name} cannot be called: ${lead}${why.startsWith(lead) ? why.slice(lead.length) : why}`,
        suggestions: [],
      },
    };
  }
  const c = classifyTool(state, resolved.tool);
  if (c.class === "quarantined" && c.pin) {
    // P2: what the server lists now was not approved; nothing of it runs until a person decides.
    return {
      ok: false,
      error: {
        code: c.pin.status === "rejected" ? "TOOL_REJECTED" : "TOOL_AWAITS_APPROVAL",
        name,
        message: quarantineMessage(resolved.tool, c.pin),
        suggestions: [],
      },
    };
  }
  if (c.class === "app-only") {
    return {
      ok: false,
      error: {
        code: "APP_ONLY_TOOL",
        name,
        message: `tool ${resolved.wireName} is app-only (its _meta.ui.visibility excludes "model"); the model cannot call it`,
        suggestions: [],
      },
    };
  }
  if (c.class === "deferred") {
    return {
      ok: false,
      error: {
        code: "TOOL_NOT_ENABLED",
        name,
        message: `tool ${resolved.wireName} is deferred: call ${ENABLE_TOOLS_NAME} with {"names": [${JSON.stringify(resolved.wireName)}]} first, then call it again`,
        suggestions: [resolved.wireName],
      },
    };
  }
  return resolved;
}
