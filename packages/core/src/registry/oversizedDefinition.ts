import type { OversizedDefinition } from "../catalog/catalogEvents.js";

/** What an oversized definition is, in words: a tool, a prompt, a resource or a resource template. */
export type DefinitionKind = "tool" | "prompt" | "resource" | "resource_template";

/** V3: the kind of an oversized entry of a listing (`kind` set in resource listings only). */
export function oversizedKind(
  list: "tools" | "prompts" | "resources",
  d: OversizedDefinition,
): DefinitionKind {
  if (list === "tools") return "tool";
  if (list === "prompts") return "prompt";
  return d.kind ?? "resource";
}

/** V3: why a definition is not served, as diagnostics, replay and explain say it. */
export function oversizedMessage(kind: DefinitionKind, d: OversizedDefinition): string {
  return `${kind.replace("_", " ")} ${JSON.stringify(d.name)} is ${formatBytes(d.bytes)}, over the limit of ${formatBytes(d.limit)} on one definition; it is not ${kind === "tool" ? "registered or " : ""}served`;
}

/** Bytes as KiB or MiB with one decimal (`100.1 KiB`, `10.0 MiB`); under 1 KiB, bytes. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
