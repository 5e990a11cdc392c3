import type { EnableError } from "../events/events.js";
import type { State } from "../fold/state.js";
import { closeNames } from "../naming/closeNames.js";
import { winnerOf, wireWinner } from "../naming/nameOwners.js";
import { listTools } from "../registry/listTools.js";
import { classifyTool } from "./classifyTool.js";
import { currentStrategy } from "./currentStrategy.js";
import { ENABLE_TOOLS_NAME } from "./modelView.js";

/** D5: all-or-nothing validation against the model-visible tools of the current registry. */
export function validateEnable(state: State, names: readonly string[]): EnableError | null {
  if (names.length === 0) {
    return {
      code: "EMPTY_REQUEST",
      message: `${ENABLE_TOOLS_NAME} needs at least one exact tool name in "names"; nothing was enabled`,
      invalid: [],
    };
  }
  const invalid: EnableError["invalid"] = [];
  let visibleNames: string[] | null = null;
  for (const name of names) {
    // R14: the model names tools by the wire names it was served; public names work too.
    const tool =
      winnerOf(state, name) ?? (state.wireNames.size > 0 ? wireWinner(state, name) : undefined);
    const c = tool ? classifyTool(state, tool) : null;
    // P2: a changed tool is enabled as it was approved; a pending or rejected one is not offered.
    const cls = c ? (c.approved?.class ?? c.class) : "hidden";
    // Hidden tools are reported as unknown: R8 keeps them out of everything the model sees.
    if (cls === "hidden") {
      visibleNames ??= listTools(state)
        .filter((t) => {
          const v = classifyTool(state, t);
          return v.class !== "app-only" && (v.class !== "quarantined" || v.approved !== undefined);
        })
        .map((t) => t.wireName);
      invalid.push({ name, reason: "unknown tool", suggestions: closeNames(name, visibleNames) });
    } else if (cls === "app-only") {
      invalid.push({ name, reason: "app-only tool (not visible to the model)", suggestions: [] });
    } else if (cls === "quarantined") {
      invalid.push({
        name,
        reason:
          c?.pin?.status === "rejected"
            ? "its definition was rejected by the user"
            : "its definition awaits the user's approval",
        suggestions: [],
      });
    }
  }
  if (invalid.length === 0) return null;
  const detail = invalid
    .map(
      (i) =>
        `${JSON.stringify(i.name)}: ${i.reason}${i.suggestions.length > 0 ? ` (did you mean ${i.suggestions.join(", ")}?)` : ""}`,
    )
    .join("; ");
  return {
    code: "INVALID_TOOL_NAMES",
    message: `${ENABLE_TOOLS_NAME} enabled nothing: ${detail}. ${currentStrategy(state) === "search" ? "Use the exact names search_tools returns." : "Use the exact names from the deferred tools list."}`,
    invalid,
  };
}
