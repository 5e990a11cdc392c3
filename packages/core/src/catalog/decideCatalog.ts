import { type At, accepted, type Decision, type ParsedCommand, v } from "../decide/decision.js";
import { requireExtension } from "../decide/requireExtension.js";
import type { State } from "../fold/state.js";

export type CatalogCommand = Extract<
  ParsedCommand,
  { type: "InvalidatePrompts" | "InvalidateResources" | "RecordPrompts" | "RecordResources" }
>;

/** G1: an extension's prompt and resource lists, recorded like its tools (per-list versions). */
export function decideCatalog(state: State, command: CatalogCommand, at: At): Decision {
  const known = requireExtension(state, command.extension);
  if (!known.ok) return known;
  const key = known.key;
  switch (command.type) {
    case "InvalidatePrompts":
      return accepted([{ type: "PromptsInvalidated", v, ...at, extension: key }]);
    case "InvalidateResources":
      return accepted([{ type: "ResourcesInvalidated", v, ...at, extension: key }]);
    case "RecordPrompts":
      return accepted([
        {
          type: "PromptsFetched",
          v,
          ...at,
          extension: key,
          startedAtVersion: command.startedAtVersion,
          prompts: command.prompts,
          ...(command.error === undefined ? {} : { error: command.error }),
          ...(command.oversized?.length ? { oversized: command.oversized } : {}),
        },
      ]);
    case "RecordResources":
      return accepted([
        {
          type: "ResourcesFetched",
          v,
          ...at,
          extension: key,
          startedAtVersion: command.startedAtVersion,
          resources: command.resources,
          resourceTemplates: command.resourceTemplates,
          ...(command.error === undefined ? {} : { error: command.error }),
          ...(command.oversized?.length ? { oversized: command.oversized } : {}),
        },
      ]);
  }
}
