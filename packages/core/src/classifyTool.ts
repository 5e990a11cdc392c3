import { hget } from "./_hashDict.js";
import type { RegisteredTool, State } from "./state.js";

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

export type ToolClass = "eager" | "deferred" | "app-only" | "hidden";

/** Why a model-visible tool is eager (D4), for explanations. */
export type EagerReason = "deferral-off" | "platform" | "always-load" | "enabled";

export interface Classification {
  class: ToolClass;
  /** Set when `class` is "eager". */
  reason?: EagerReason;
}

/** D3/D4: one registered (winning) tool's class in the model view. */
export function classifyTool(state: State, tool: RegisteredTool): Classification {
  const ext = hget(state.extensions, tool.owner);
  if (!ext || ext.hidden) return { class: "hidden" };
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
