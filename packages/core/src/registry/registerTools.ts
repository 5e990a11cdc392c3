import type { McpTool } from "../events/events.js";
import type { ExtensionState, RegisteredTool, RejectedTool } from "../fold/state.js";
import { MAX_WIRE_NAME_LENGTH, wireSafe } from "../naming/wireName.js";
import { isMcpToolDefinition, mcpToolProblem } from "./mcpToolDefinition.js";
import { sameTool } from "./sameJson.js";

/** The tools a fetch registers, before wire names (R14) are applied. */
export interface Registration {
  /** In listed order, each named by its public name (its wire name until R14 says otherwise). */
  tools: RegisteredTool[];
  rejected: RejectedTool[];
  /** Every new public name fits the wire as is (a kept tool counts as fitting only if it was served as named). */
  allFit: boolean;
  /** False while the list kept `previous`'s tools in `previous`'s order. */
  reordered: boolean;
}

/**
 * R9: the tools a fetch of `listed` registers on `ext`: the extension's `availableTools`
 * filter, malformed tools (issue 10.3) and repeated names rejected with a reason, public
 * names per R3. A tool listed again unchanged keeps its object from `previous` (checked,
 * named, in the old generation already): most refetches change nothing. Pass no `previous`
 * to get fresh objects.
 */
export function registerTools(
  ext: ExtensionState,
  listed: readonly McpTool[],
  previous: readonly RegisteredTool[] = [],
): Registration {
  const key = ext.key;
  const allowed = ext.availableTools.length > 0 ? new Set(ext.availableTools) : null;
  // R3; an extension key is always wire-safe (R1), so only the raw name needs checking (R14).
  const prefix = ext.exposeUnprefixed ? "" : `${key}__`;
  let byName: Map<string, RegisteredTool> | null = null;
  const tools: RegisteredTool[] = [];
  // Names registered so far, kept only once the list leaves the previous one's order (until
  // then they are the previous list's first names, distinct by construction).
  let seen: Set<string> | null = null;
  const rejected: RejectedTool[] = [];
  let allFit = true;
  for (const raw of listed) {
    const rawName = raw.name;
    if (allowed && !allowed.has(rawName)) continue;
    // A tool listed again unchanged keeps its registered object (checked, named, in the old
    // generation already): the refetch's copy dies young. Most refetches change nothing.
    const next: RegisteredTool | undefined = previous[tools.length];
    // The same object: a list reused by the log's reader (createLogLineParser) or a host.
    if (
      seen === null &&
      next !== undefined &&
      (next.raw === raw || (next.rawName === rawName && sameTool(next.raw, raw)))
    ) {
      if (next.wireName !== next.publicName) allFit = false;
      tools.push(next);
      continue;
    }
    if (seen === null) seen = new Set(tools.map((t) => t.rawName));
    byName ??= new Map(previous.map((t) => [t.rawName, t]));
    const old = byName.get(rawName);
    if (old !== undefined && !seen.has(rawName) && sameTool(old.raw, raw)) {
      seen.add(rawName);
      if (old.wireName !== old.publicName) allFit = false;
      tools.push(old);
      continue;
    }
    // Issue 10.3: one malformed tool in a served list makes SDK clients reject the whole list.
    if (!isMcpToolDefinition(raw)) {
      rejected.push({
        rawName,
        reason: "malformed",
        message: `tool ${JSON.stringify(rawName)} is not a valid MCP tool (${mcpToolProblem(raw)}); it is not registered or served`,
      });
      continue;
    }
    if (seen.has(rawName)) {
      rejected.push({
        rawName,
        reason: "duplicate",
        message: `the server listed ${JSON.stringify(rawName)} more than once; the first is kept`,
      });
      continue;
    }
    seen.add(rawName);
    const publicName = prefix === "" ? rawName : prefix + rawName;
    if (
      allFit &&
      !(publicName.length <= MAX_WIRE_NAME_LENGTH && rawName !== "" && wireSafe(rawName))
    )
      allFit = false;
    // A view of the raw tool: its served definition is derived when asked for (servedTool).
    tools.push({ publicName, wireName: publicName, rawName, owner: key, raw });
  }
  return { tools, rejected, allFit, reordered: seen !== null };
}
