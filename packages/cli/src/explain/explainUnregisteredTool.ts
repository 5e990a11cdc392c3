import { closeNames, collisionOwners, findTool, listTools, type State } from "@toolledger/core";
import { extensionKeys, getExtension } from "../session/stateExtensions.js";
import { byPosition, type Reason, type ToolExplanation } from "./explanation.js";
import { at, type Facts } from "./toolFacts.js";
import { unlistedOwner } from "./unlistedOwner.js";

/** A name the registry does not hold: a collision loser, filtered, rejected, removed, or never seen. */
export function explainUnregisteredTool(
  state: State,
  name: string,
  publicName: string,
  facts: Facts,
  reasons: Reason[],
): ToolExplanation {
  for (const key of extensionKeys(state)) {
    const ext = getExtension(state, key)!;
    const t = findTool(ext, publicName);
    if (!t) continue;
    const owners = collisionOwners(state, publicName) ?? [];
    const winner = owners[0] ?? "another extension";
    reasons.push({
      rule: "R10",
      text: `${key}'s ${t.rawName} and ${winner}'s tool both have the public name ${publicName}; ${winner} comes first (visible extensions before hidden ones, then by key) and wins`,
      positions: owners.flatMap((o) => at(facts.fetched, o)).sort(byPosition),
    });
    return {
      asked: name,
      publicName,
      extension: key,
      rawName: t.rawName,
      status: "lost-collision",
      summary: `${publicName} from ${key} lost a collision: the name belongs to ${winner}'s tool`,
      reasons,
      suggestions: [],
    };
  }
  for (const key of extensionKeys(state)) {
    const ext = getExtension(state, key)!;
    const r = ext.rejected.find(
      (x) => (ext.exposeUnprefixed ? x.rawName : `${key}__${x.rawName}`) === publicName,
    );
    if (!r) continue;
    reasons.push({
      rule: r.reason === "oversized" ? "V3" : "R9",
      text: r.message,
      positions: at(facts.fetched, key),
    });
    return {
      asked: name,
      publicName,
      extension: key,
      rawName: r.rawName,
      status: "rejected",
      summary: `${publicName} was sent by ${key} but not registered`,
      reasons,
      suggestions: [],
    };
  }
  if (facts.filteredAt) {
    const f = facts.filteredAt;
    reasons.push({
      rule: "R9",
      text: `${f.extension} sent ${f.raw}, but the extension's available_tools list does not name it`,
      positions: [...at(facts.extensionAdded, f.extension), f.position],
    });
    return {
      asked: name,
      publicName,
      extension: f.extension,
      rawName: f.raw,
      status: "filtered",
      summary: `${publicName} is filtered out by ${f.extension}'s available_tools`,
      reasons,
      suggestions: [],
    };
  }
  if (facts.goneAt) {
    reasons.push({
      rule:
        facts.goneAt.type === "ExtensionRemoved"
          ? "R7"
          : facts.goneAt.type === "ExtensionAdded"
            ? "R6"
            : "R9",
      text: goneText(facts.goneAt.type),
      positions: [...(facts.lastSeen === null ? [] : [facts.lastSeen]), facts.goneAt.position],
    });
    return {
      asked: name,
      publicName,
      extension: null,
      rawName: null,
      status: "removed",
      summary: `${publicName} existed earlier in the log and is gone now`,
      reasons,
      suggestions: [],
    };
  }
  const suggestions = closeNames(
    publicName,
    listTools(state, { includeHidden: true }).map((t) => t.publicName),
  );
  // Issue 20: a server that never listed (still starting when the host stopped) says why.
  const owner = unlistedOwner(state, publicName);
  if (owner)
    reasons.push({ rule: "R9", text: owner.text, positions: at(facts.fetched, owner.key) });
  return {
    asked: name,
    publicName,
    extension: null,
    rawName: null,
    status: "unknown",
    summary: `no tool named ${JSON.stringify(name)} appears in this log${owner ? `; ${owner.text}` : ""}`,
    reasons,
    suggestions,
  };
}

function goneText(type: string): string {
  switch (type) {
    case "ExtensionRemoved":
      return "its extension was removed, and its tools with it";
    case "ExtensionAdded":
      return "its extension was re-added with a different config, which drops its tools until they are fetched again";
    case "ToolsFetchFailed":
      return "fetching its extension's tools failed, which leaves the extension with no tools";
    case "ToolsFetched":
      return "a later fetch of its extension no longer listed it (or another extension now wins the name)";
    default:
      return `the ${type} event dropped it`;
  }
}
