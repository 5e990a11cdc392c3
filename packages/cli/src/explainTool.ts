import {
  classifyTool,
  closeNames,
  collisionOwners,
  findTool,
  initialState,
  listTools,
  resolveTool,
  type State,
} from "@toolledger/core";
import { foldEntries } from "./foldEntries.js";
import type { LogEntry } from "./logEntry.js";
import { extensionKeys, getExtension } from "./stateExtensions.js";

export type ToolStatus =
  | "eager"
  | "deferred"
  | "enabled"
  | "app-only"
  | "hidden"
  | "lost-collision"
  | "filtered"
  | "rejected"
  | "removed"
  | "unknown";

export interface Reason {
  /** The spec rule that decides it (R…, D…). */
  rule: string;
  text: string;
  /** Positions of the events that decided it, in order. */
  positions: number[];
}

export interface Explanation {
  /** The name as asked. */
  asked: string;
  /** The public name it stands for (after R13 recovery), when known. */
  publicName: string;
  extension: string | null;
  rawName: string | null;
  status: ToolStatus;
  /** One sentence. */
  summary: string;
  reasons: Reason[];
  /** For an unknown name: close public names. */
  suggestions: string[];
}

interface EnableRecord {
  callId: string;
  request: number;
  response: number | null;
  ok: boolean | null;
  error?: string;
}

/** What the log says about one public name, collected in one pass. */
interface Facts {
  extensionAdded: Map<string, number>;
  fetched: Map<string, number>;
  deferral: number | null;
  requests: Map<string, { position: number; names: string[] }>;
  enables: EnableRecord[];
  enabledBy: EnableRecord | null;
  carriedBy: number | null;
  clearedAt: number | null;
  lastSeen: number | null;
  goneAt: { position: number; type: string } | null;
  filteredAt: { position: number; extension: string; raw: string } | null;
}

/**
 * Why `name` is what it is at the end of `entries` (visible, hidden, app-only, deferred,
 * enabled, renamed, or lost in a collision), citing the positions of the events that decided it.
 */
export function explainTool(entries: readonly LogEntry[], name: string): Explanation {
  let state = initialState();
  for (const step of foldEntries(entries)) state = step.state;
  const resolved = resolveTool(state, name, { includeHidden: true });
  const publicName = resolved.ok ? resolved.publicName : name.trim();
  const facts = collect(entries, publicName);
  const reasons: Reason[] = [];
  if (resolved.ok && resolved.recovered) {
    reasons.push({
      rule: "R13",
      text: `${JSON.stringify(name)} is not a public name; it was recovered as ${publicName}`,
      positions: [],
    });
  }

  if (resolved.ok) {
    const tool = resolved.tool;
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
    const owners = collisionOwners(state, publicName);
    if (owners && owners.length > 1) {
      reasons.push({
        rule: "R10",
        text: `${owners.slice(1).join(", ")} also produce ${publicName}; ${tool.owner} wins because extensions are ordered by key`,
        positions: owners.flatMap((o) => at(facts.fetched, o)).sort((a, b) => a - b),
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
          text: `its _meta.ui.visibility is ${JSON.stringify((tool.tool._meta?.ui as { visibility?: unknown } | undefined)?.visibility)}, without "model"`,
          positions: fetched,
        });
        break;
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

  // Not in the registry: a collision loser, filtered, rejected, removed, or never seen.
  for (const key of extensionKeys(state)) {
    const ext = getExtension(state, key)!;
    const t = findTool(ext, publicName);
    if (!t) continue;
    const owners = collisionOwners(state, publicName) ?? [];
    const winner = owners[0] ?? "another extension";
    reasons.push({
      rule: "R10",
      text: `${key}'s ${t.rawName} and ${winner}'s tool both have the public name ${publicName}; ${winner} comes first by key and wins`,
      positions: owners.flatMap((o) => at(facts.fetched, o)).sort((a, b) => a - b),
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
    reasons.push({ rule: "R9", text: r.message, positions: at(facts.fetched, key) });
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
  return {
    asked: name,
    publicName,
    extension: null,
    rawName: null,
    status: "unknown",
    summary: `no tool named ${JSON.stringify(name)} appears in this log`,
    reasons,
    suggestions,
  };
}

function eagerReason(reason: string, facts: Facts, kind: string, added: number[]): Reason {
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

function collect(entries: readonly LogEntry[], publicName: string): Facts {
  const facts: Facts = {
    extensionAdded: new Map(),
    fetched: new Map(),
    deferral: null,
    requests: new Map(),
    enables: [],
    enabledBy: null,
    carriedBy: null,
    clearedAt: null,
    lastSeen: null,
    goneAt: null,
    filteredAt: null,
  };
  let state: State = initialState();
  for (const step of foldEntries(entries)) {
    const { position, event } = step.entry;
    const before = state;
    state = step.state;
    if (state === before) continue;
    switch (event.type) {
      case "ExtensionAdded": {
        const key = extensionKeys(state).find(
          (k) => getExtension(state, k) !== getExtension(before, k),
        );
        if (key !== undefined) facts.extensionAdded.set(key, position);
        break;
      }
      case "ToolsFetched":
      case "ToolsFetchFailed": {
        for (const key of extensionKeys(state)) {
          const a = getExtension(before, key);
          const b = getExtension(state, key)!;
          if (a && a.fetch !== b.fetch) facts.fetched.set(key, position);
        }
        if (event.type === "ToolsFetched") {
          const key = extensionKeys(state).find(
            (k) => getExtension(state, k)?.fetch !== getExtension(before, k)?.fetch,
          );
          const ext = key === undefined ? undefined : getExtension(state, key);
          if (ext && key !== undefined && ext.availableTools.length > 0) {
            for (const raw of event.tools) {
              const pub = ext.exposeUnprefixed ? raw.name : `${key}__${raw.name}`;
              if (pub === publicName && !ext.availableTools.includes(raw.name))
                facts.filteredAt = { position, extension: key, raw: raw.name };
            }
          }
        }
        break;
      }
      case "DeferralConfigured":
        facts.deferral = position;
        break;
      case "EnableToolsRequested":
        facts.requests.set(event.callId, {
          position,
          names: [...(facts.requests.get(event.callId)?.names ?? []), ...event.names],
        });
        if (event.names.includes(publicName))
          facts.enables.push({ callId: event.callId, request: position, response: null, ok: null });
        break;
      case "EnableToolsResponded": {
        const rec = facts.enables.find((e) => e.callId === event.callId && e.response === null);
        if (rec && before.pending.some((p) => p.callId === event.callId)) {
          rec.response = position;
          rec.ok = event.ok;
          if (event.error) rec.error = event.error.message;
        }
        break;
      }
      default:
        break;
    }
    const wasEnabled = before.enabled.includes(publicName);
    const isEnabled = state.enabled.includes(publicName);
    if (!wasEnabled && isEnabled) {
      if (event.type === "EnableToolsResponded") {
        facts.enabledBy =
          facts.enables.find((e) => e.callId === event.callId && e.response === position) ?? null;
        facts.carriedBy = null;
      } else if (event.type === "Compacted") {
        facts.enabledBy = null;
        facts.carriedBy = position;
      }
    } else if (wasEnabled && isEnabled && event.type === "Compacted") {
      facts.carriedBy = position;
    } else if (wasEnabled && !isEnabled) {
      facts.clearedAt = position;
      facts.enabledBy = null;
      facts.carriedBy = null;
    }
    const wasThere = present(before, publicName);
    const isThere = present(state, publicName);
    if (isThere) {
      facts.lastSeen = position;
      facts.goneAt = null;
    } else if (wasThere) {
      facts.goneAt = { position, type: event.type };
    }
  }
  return facts;
}

function present(state: State, publicName: string): boolean {
  const r = resolveTool(state, publicName, { includeHidden: true });
  return r.ok && !r.recovered;
}

function at(map: Map<string, number>, key: string): number[] {
  const p = map.get(key);
  return p === undefined ? [] : [p];
}
