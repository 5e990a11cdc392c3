import { classifyTool } from "./classifyTool.js";
import { ENABLE_TOOLS_NAME } from "./modelView.js";
import { type ResolvedTool, type ResolveOptions, resolveTool } from "./resolveTool.js";
import type { State } from "./state.js";

export type CheckCallResult =
  | ResolvedTool
  | {
      ok: false;
      error: {
        code: "UNKNOWN_TOOL" | "AMBIGUOUS_TOOL" | "APP_ONLY_TOOL" | "TOOL_NOT_ENABLED";
        name: string;
        message: string;
        suggestions: string[];
      };
    };

/**
 * R13 + D3 + D9: may the model call `name` now? Resolves the owner and raw name; refuses
 * app-only tools and deferred tools that are not enabled. Permission checks stay the host's.
 */
export function checkCall(
  state: State,
  name: string,
  options: ResolveOptions = {},
): CheckCallResult {
  const resolved = resolveTool(state, name, options);
  if (!resolved.ok) return resolved;
  const c = classifyTool(state, resolved.tool);
  if (c.class === "app-only") {
    return {
      ok: false,
      error: {
        code: "APP_ONLY_TOOL",
        name,
        message: `tool ${resolved.publicName} is app-only (its _meta.ui.visibility excludes "model"); the model cannot call it`,
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
        message: `tool ${resolved.publicName} is deferred: call ${ENABLE_TOOLS_NAME} with {"names": [${JSON.stringify(resolved.publicName)}]} first, then call it again`,
        suggestions: [resolved.publicName],
      },
    };
  }
  return resolved;
}
