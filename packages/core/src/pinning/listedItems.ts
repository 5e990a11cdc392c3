import type { McpPrompt, McpResource, McpResourceTemplate, McpTool } from "../events/events.js";
import type { PinKind, PinList } from "./pinEvents.js";
import {
  definitionDigest,
  instructionsDefinition,
  promptDefinition,
  resourceDefinition,
  templateDefinition,
  toolDefinition,
  toolDigest,
} from "./pinnedDefinition.js";

/** One definition of a listing, as it is pinned. */
export interface ListedItem {
  kind: PinKind;
  name: string;
  definition: Record<string, unknown>;
  digest: string;
}

/** What one listing holds, per list (only the list's own fields are read). */
export interface Listing {
  tools?: readonly McpTool[] | undefined;
  prompts?: readonly McpPrompt[] | undefined;
  resources?: readonly McpResource[] | undefined;
  resourceTemplates?: readonly McpResourceTemplate[] | undefined;
  instructions?: string | undefined;
}

/**
 * P1: a listing's definitions, the first of a repeated name kept (as R9 registers them). With
 * `availableTools`, only the tools the registry registers are pinned.
 */
export function listedItems(
  list: PinList,
  listing: Listing,
  availableTools: readonly string[] = [],
): ListedItem[] {
  const out: ListedItem[] = [];
  const seen = new Set<string>();
  const add = (
    kind: PinKind,
    name: string,
    definition: Record<string, unknown>,
    digest?: string,
  ) => {
    const id = `${kind}:${name}`;
    if (seen.has(id)) return;
    seen.add(id);
    out.push({ kind, name, definition, digest: digest ?? definitionDigest(definition) });
  };
  switch (list) {
    case "tools":
      for (const tool of listing.tools ?? []) {
        if (availableTools.length > 0 && !availableTools.includes(tool.name)) continue;
        add("tool", tool.name, toolDefinition(tool), toolDigest(tool));
      }
      break;
    case "prompts":
      for (const prompt of listing.prompts ?? [])
        add("prompt", prompt.name, promptDefinition(prompt));
      break;
    case "resources":
      for (const r of listing.resources ?? []) add("resource", r.uri, resourceDefinition(r));
      for (const t of listing.resourceTemplates ?? [])
        add("resource_template", t.uriTemplate, templateDefinition(t));
      break;
    case "instructions":
      if (listing.instructions !== undefined && listing.instructions.trim() !== "")
        add("instructions", "", instructionsDefinition(listing.instructions));
      break;
  }
  return out;
}
