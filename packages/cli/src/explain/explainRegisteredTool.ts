import {
  classifyTool,
  collisionOwners,
  MAX_WIRE_NAME_LENGTH,
  type RegisteredTool,
  type State,
  WIRE_NAME_PATTERN,
} from "@toolledger/core";
import { getExtension } from "../session/stateExtensions.js";
import { explainQuarantine } from "./explainQuarantine.js";
import {
  byPosition,
  type Position,
  type Reason,
  type ToolExplanation,
  type ToolStatus,
} from "./explanation.js";
import { at, type Facts } from "./toolFacts.js";

/**
 * A tool the registry holds: whose it is and under which names (R1/R3, R14), the collision it
 * won (R10), and why the model sees it as it does (R8, D1–D8).
 */
export function explainRegisteredTool(
  state: State,
  name: string,
  publicName: string,
  tool: RegisteredTool,
  facts: Facts,
  reasons: Reason[],
): ToolExplanation {
  const ext = getExtension(state, tool.owner)!;
  const added = at(facts.extensionAdded, tool.owner);
  const fetched = at(facts.fetched, tool.owner);
  reasons.push({
    rule: ext.exposeUnprefixed ? "R3" : "R1/R3",
    text: ext.exposeUnprefixed
      ? `${publicName} is ${ext.name}'s tool ${tool.rawName}, exposed unprefixed`
      : `${publicName} is ${JSON.stringify(ext.name)}'s tool ${tool.rawName}, renamed with the extension key ${tool.owner}${ext.name === tool.owner ? "" : ` (derived from the display name ${JSON.stringify(ext.name)})`} and "__"`,
    positions: [...added, ...fetched],
  });
  if (tool.wireName !== publicName) {
    reasons.push({
      rule: "R14",
      text: `${publicName} is not a name every model API accepts (${WIRE_NAME_PATTERN.source}${publicName.length > MAX_WIRE_NAME_LENGTH ? `, and it has ${publicName.length} characters` : ""}); models are served it as ${tool.wireName}, and both names resolve`,
      positions: fetched,
    });
  }
  const owners = collisionOwners(state, publicName);
  if (owners && owners.length > 1) {
    reasons.push({
      rule: "R10",
      text: `${owners.slice(1).join(", ")} also produce ${publicName}; ${tool.owner} wins because visible extensions come before hidden ones, then extensions by key`,
      positions: owners.flatMap((o) => at(facts.fetched, o)).sort(byPosition),
    });
  }
  const c = classifyTool(state, tool);
  let status: ToolStatus;
  let summary: string;
  switch (c.class) {
    case "hidden":
      status = "hidden";
      summary = `${publicName} is hidden: users and the model never see it`;
      reasons.push({
        rule: "R8",
        text: tool.owner.startsWith("_")
          ? `its extension's key ${tool.owner} starts with "_"`
          : `its extension ${tool.owner} was added with hidden: true`,
        positions: added,
      });
      break;
    case "app-only":
      status = "app-only";
      summary = `${publicName} is app-only: the model never sees, defers or enables it`;
      reasons.push({
        rule: "D3",
        text: `its _meta.ui.visibility is ${JSON.stringify((tool.raw._meta?.ui as { visibility?: unknown } | undefined)?.visibility)}, without "model"`,
        positions: fetched,
      });
      break;
    case "quarantined": {
      status = "quarantined";
      const q = explainQuarantine(publicName, c);
      summary = q.summary;
      reasons.push({ ...q.reason, positions: fetched });
      break;
    }
    case "deferred":
      status = "deferred";
      summary = `${publicName} is deferred: the model sees its name only and must call enable_tools with it first`;
      reasons.push({
        rule: "D4",
        text: "deferral is lookup, and the tool is not from a platform extension, not in the always-load list, and not enabled",
        positions: facts.deferral === null ? [] : [facts.deferral],
      });
      break;
    default: {
      const reason = c.reason ?? "deferral-off";
      status = reason === "enabled" ? "enabled" : "eager";
      summary =
        reason === "enabled"
          ? `${publicName} is enabled: the model gets its full schema`
          : `${publicName} is visible: the model gets its full schema`;
      reasons.push(eagerReason(reason, facts, ext.kind, added));
    }
  }
  if (c.class === "deferred" || c.class === "eager")
    historyReasons(facts, reasons, c.reason === "enabled");
  return {
    asked: name,
    publicName,
    extension: tool.owner,
    rawName: tool.rawName,
    status,
    summary,
    reasons,
    suggestions: [],
  };
}

function eagerReason(reason: string, facts: Facts, kind: string, added: Position[]): Reason {
  switch (reason) {
    case "platform":
      return {
        rule: "D4",
        text: `its extension is a platform extension (kind ${kind}); platform tools are always eager`,
        positions: added,
      };
    case "always-load":
      return {
        rule: "D2",
        text: "it is named in the always-load list",
        positions: facts.deferral === null ? [] : [facts.deferral],
      };
    case "enabled": {
      const by = facts.enabledBy;
      if (by) {
        return {
          rule: "D6",
          text: `enable_tools call ${by.callId} asked for it and got a successful response${facts.carriedBy !== null ? "; compaction carried it over" : ""}`,
          positions: [
            by.request,
            ...(by.response === null ? [] : [by.response]),
            ...(facts.carriedBy === null ? [] : [facts.carriedBy]),
          ],
        };
      }
      return {
        rule: "D7",
        text: "the latest compaction carried it in the enabled set",
        positions: facts.carriedBy === null ? [] : [facts.carriedBy],
      };
    }
    default:
      return {
        rule: "D1",
        text:
          facts.deferral === null
            ? "deferral is off (no DeferralConfigured event; off is the default), so every visible tool is loaded"
            : "deferral is off, so every visible tool is loaded",
        positions: facts.deferral === null ? [] : [facts.deferral],
      };
  }
}

/** D5/D6/D8: failed or unanswered enables that named the tool, and the clear that ended its enable. */
function historyReasons(facts: Facts, reasons: Reason[], enabled: boolean): void {
  for (const e of facts.enables) {
    if (e.ok === false) {
      reasons.push({
        rule: "D5",
        text: `enable_tools call ${e.callId} named it but failed as a whole${e.error ? `: ${e.error}` : ""}`,
        positions: e.response === null ? [e.request] : [e.request, e.response],
      });
    } else if (e.ok === null) {
      reasons.push({
        rule: "D6",
        text: `enable_tools call ${e.callId} named it but was never answered, so it enabled nothing`,
        positions: [e.request],
      });
    }
  }
  if (!enabled && facts.clearedAt !== null) {
    reasons.push({
      rule: "D8",
      text: `it was enabled earlier, until the conversation was cleared`,
      positions: [facts.clearedAt],
    });
  }
}
