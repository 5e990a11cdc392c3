import { hget } from "../fold/hashDict.js";
import type { ExtensionState, RegisteredTool, State } from "../fold/state.js";
import { approvedTool, type PinVerdict, toolVerdict } from "../pinning/pinVerdict.js";

/**
 * D3: app-only when `_meta.ui.visibility` is an array without "model". A missing or
 * non-array visibility counts as visible.
 */
export function isAppOnly(tool: RegisteredTool): boolean {
  const ui = tool.raw._meta?.ui;
  if (typeof ui !== "object" || ui === null) return false;
  const visibility = (ui as { visibility?: unknown }).visibility;
  return Array.isArray(visibility) && !visibility.includes("model");
}

export type ToolClass = "eager" | "deferred" | "app-only" | "hidden" | "quarantined";

/** Why a model-visible tool is eager (D4), for explanations. */
export type EagerReason = "deferral-off" | "platform" | "always-load" | "enabled";

export interface Classification {
  class: ToolClass;
  /** Set when `class` is "eager". */
  reason?: EagerReason;
  /** P2: why a quarantined tool is (changed, pending or rejected). */
  pin?: PinVerdict;
  /**
   * P2: a changed tool keeps its approved definition in the model view until a person
   * approves the new one: that definition (under the tool's names) and its class there.
   */
  approved?: { tool: RegisteredTool; class: "eager" | "deferred"; reason?: EagerReason };
}

/**
 * D3/D4/P2: one registered (winning) tool's class in the model view, the one place every
 * path asks (model view, enable_tools, calls, search): a tool whose definition is not
 * approved under a `quarantine` policy is `quarantined`, never eager or deferred.
 */
export function classifyTool(state: State, tool: RegisteredTool): Classification {
  const ext = hget(state.extensions, tool.owner);
  if (!ext || ext.hidden) return { class: "hidden" };
  const pin = toolVerdict(state, tool);
  if (pin.enforced && pin.status !== "approved") {
    const approved = pin.status === "changed" ? pin.record?.approved : undefined;
    if (!approved) return { class: "quarantined", pin };
    const shown = classifyVisible(state, ext, approvedTool(tool, approved));
    return shown.class === "eager" || shown.class === "deferred"
      ? {
          class: "quarantined",
          pin,
          approved: {
            tool: approvedTool(tool, approved),
            class: shown.class,
            ...(shown.reason ? { reason: shown.reason } : {}),
          },
        }
      : { class: "quarantined", pin };
  }
  return classifyVisible(state, ext, tool);
}

/** D3/D4 for a tool of a visible extension. */
function classifyVisible(state: State, ext: ExtensionState, tool: RegisteredTool): Classification {
  if (isAppOnly(tool)) return { class: "app-only" };
  if (state.deferral.mode === "off") return { class: "eager", reason: "deferral-off" };
  if (ext.kind === "platform") return { class: "eager", reason: "platform" };
  // D2/R14: an entry may name the tool by its public name or by the wire name the model sees.
  const { alwaysLoad } = state.deferral;
  if (
    alwaysLoad.includes(tool.publicName) ||
    (tool.wireName !== tool.publicName && alwaysLoad.includes(tool.wireName))
  )
    return { class: "eager", reason: "always-load" };
  if (
    isEnabled(state, tool.publicName) ||
    (tool.wireName !== tool.publicName && isEnabled(state, tool.wireName))
  )
    return { class: "eager", reason: "enabled" };
  return { class: "deferred" };
}

const enabledSets = new WeakMap<readonly string[], ReadonlySet<string>>();

/** D6: whether `publicName` is in the enabled set (memoised per immutable enabled list). */
export function isEnabled(state: State, publicName: string): boolean {
  let set = enabledSets.get(state.enabled);
  if (!set) {
    set = new Set(state.enabled);
    enabledSets.set(state.enabled, set);
  }
  return set.has(publicName);
}
