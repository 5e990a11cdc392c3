import { classifyTool } from "./classifyTool.js";
import { downExtension } from "./downExtension.js";
import { ENABLE_TOOLS_NAME } from "./modelView.js";
import { quarantineMessage } from "./pinning/quarantineMessage.js";
import {
  type ResolvedTool,
  type ResolveOptions,
  resolveTool,
  stripMangling,
} from "./resolveTool.js";
import type { State } from "./state.js";

/** D4/D5: `enable_tools` in lookup mode: the host answers it itself (no server owns it). */
export interface BuiltinCall {
  ok: true;
  builtin: true;
  publicName: typeof ENABLE_TOOLS_NAME;
  wireName: typeof ENABLE_TOOLS_NAME;
  /** Empty: no extension owns the built-in. */
  extension: "";
  rawName: typeof ENABLE_TOOLS_NAME;
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
 * is down (its tools left with its failed fetch) with why, instead of "unknown tool" and
 * another extension's close names. Permission checks stay the host's.
 */
export function checkCall(
  state: State,
  name: string,
  options: ResolveOptions = {},
): CheckCallResult {
  if (state.deferral.mode === "lookup") {
    // The model view offers the built-in in lookup mode, and it wins over a registry tool
    // of that name (D4); R13's mangled forms reach it too.
    const stripped = stripMangling(name);
    if (name === ENABLE_TOOLS_NAME || stripped === ENABLE_TOOLS_NAME) {
      return {
        ok: true,
        builtin: true,
        publicName: ENABLE_TOOLS_NAME,
        wireName: ENABLE_TOOLS_NAME,
        extension: "",
        rawName: ENABLE_TOOLS_NAME,
        recovered: name !== ENABLE_TOOLS_NAME,
      };
    }
  }
  const resolved = resolveTool(state, name, options);
  if (!resolved.ok) {
    const down =
      resolved.error.code === "UNKNOWN_TOOL" ? downExtension(state, name, options) : null;
    if (!down) return resolved;
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
