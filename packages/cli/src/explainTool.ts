import {
  classifyTool,
  closeNames,
  collisionOwners,
  ENABLE_TOOLS_NAME,
  evolve,
  findTool,
  initialState,
  listTools,
  MAX_WIRE_NAME_LENGTH,
  resolveTool,
  type State,
  WIRE_NAME_PATTERN,
} from "@toolledger/core";
import { explainQuarantine } from "./explainQuarantine.js";
import { foldEntries } from "./foldEntries.js";
import type { LogEntry } from "./logEntry.js";
import { extensionKeys, getExtension } from "./stateExtensions.js";

export type ToolStatus =
  | "builtin"
  | "eager"
  | "deferred"
  | "enabled"
  | "app-only"
  | "hidden"
  | "lost-collision"
  | "filtered"
  | "rejected"
  | "removed"
  | "quarantined"
  | "unknown";

/** Where an event sits in the log: its position, or a registry event's label in a conversation's log (`h12`). */
export type Position = number | string;

function byPosition(a: Position, b: Position): number {
  if (typeof a === typeof b)
    return typeof a === "number"
      ? (a as number) - (b as number)
      : String(a).localeCompare(String(b), "en", { numeric: true });
  return typeof a === "string" ? -1 : 1;
}

export interface Reason {
  /** The rule that decides it (R…, D…), as numbered in docs/rules.md. */
  rule: string;
  text: string;
  /** Positions of the events that decided it, in order. */
  positions: Position[];
}

export interface Explanation {
  /** The name as asked. */
  asked: string;
  /** The public name it stands for (after R13 recovery), when known. */
  publicName: string;
  /** R14: the name models are served, when the tool is registered (the public name when it fits). */
  wireName: string | null;
  extension: string | null;
  rawName: string | null;
  status: ToolStatus;
  /** One sentence. */
  summary: string;
  reasons: Reason[];
  /** For an unknown name: close public names. */
  suggestions: string[];
  /** C4: every recorded call of the tool, in order (empty for a log without calls). */
  calls: CallHistoryEntry[];
}

/** C4: one call of the explained tool, from the log. */
export interface CallHistoryEntry {
  callId: string;
  /** Where the call started (and finished) in the log. */
  position: number;
  finishedAt: number | null;
  outcome: string | null;
  reason: string | null;
  durationMs: number | null;
  error: string | null;
}

interface EnableRecord {
  callId: string;
  request: Position;
  response: Position | null;
  ok: boolean | null;
  error?: string;
}

/** What the log says about one public name, collected in one pass. */
interface Facts {
  extensionAdded: Map<string, Position>;
  fetched: Map<string, Position>;
  deferral: Position | null;
  requests: Map<string, { position: Position; names: string[] }>;
  enables: EnableRecord[];
  enabledBy: EnableRecord | null;
  carriedBy: Position | null;
  clearedAt: Position | null;
  lastSeen: Position | null;
  goneAt: { position: Position; type: string } | null;
  filteredAt: { position: Position; extension: string; raw: string } | null;
}

/**
 * Why `name` is what it is at the end of `entries` (visible, hidden, app-only, deferred,
 * enabled, renamed, or lost in a collision), citing the positions of the events that decided it.
 */
export function explainTool(entries: readonly LogEntry[], name: string): Explanation {
  const explanation =
    name.trim() === ENABLE_TOOLS_NAME
      ? explainEnableTools(entries)
      : { ...explainRegistryTool(entries, name), calls: [] };
  explanation.calls = callHistory(entries, explanation.publicName);
  const c = explanation.calls;
  if (c.length > 0) {
    const counts = new Map<string, number>();
    for (const call of c) {
      const key =
        call.outcome === null
          ? "unfinished"
          : call.outcome === "refused"
            ? `refused (${call.reason})`
            : call.outcome;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const last = c.at(-1)!;
    explanation.reasons.push({
      rule: "C4",
      text: `called ${c.length} time(s): ${[...counts].map(([k, n]) => `${n} ${k}`).join(", ")}; the last call ${last.outcome === null ? "has no outcome recorded" : `was ${last.outcome}${last.reason ? ` (${last.reason})` : ""}`}`,
      positions: c.map((x) => x.position),
    });
    const early = callsWhileDeferred(entries, explanation.publicName);
    if (early.length > 0)
      explanation.reasons.push({
        rule: "D9",
        text: `${early.length} of these calls came while it was deferred and not enabled: the host that recorded them (an imported session) let them through; toolledger's gateway refuses such a call`,
        positions: early,
      });
  }
  return explanation;
}

/** The built-in `enable_tools` (D4, D5): offered while deferral is lookup; what it enabled. */
function explainEnableTools(entries: readonly LogEntry[]): Explanation {
  let state = initialState();
  const requests: { position: number; ok: boolean | null; names: string[] }[] = [];
  let deferralAt: number | null = null;
  const pending = new Map<string, { position: number; ok: boolean | null; names: string[] }>();
  for (const step of foldEntries(entries)) {
    const { event, position } = step.entry;
    state = step.state;
    if (event.type === "DeferralConfigured") deferralAt = position;
    if (event.type === "EnableToolsRequested") {
      const r = { position, ok: null, names: [...event.names] };
      requests.push(r);
      pending.set(event.callId, r);
    }
    if (event.type === "EnableToolsResponded") {
      const r = pending.get(event.callId);
      if (r) r.ok = event.ok;
      pending.delete(event.callId);
    }
  }
  const lookup = state.deferral.mode === "lookup";
  const ok = requests.filter((r) => r.ok === true).length;
  const failed = requests.filter((r) => r.ok === false).length;
  const reasons: Reason[] = [
    {
      rule: "D1/D4",
      text: lookup
        ? "deferral is lookup: the model gets enable_tools and the names of deferred tools"
        : "deferral is off: the model gets every tool's schema and no enable_tools",
      positions: deferralAt === null ? [] : [deferralAt],
    },
  ];
  if (requests.length > 0) {
    reasons.push({
      rule: "D5/D6",
      text: `${requests.length} request(s): ${ok} enabled tools, ${failed} failed and enabled nothing${requests.length - ok - failed > 0 ? `, ${requests.length - ok - failed} never answered` : ""}; enabled now: ${state.enabled.join(", ") || "none"}`,
      positions: requests.map((r) => r.position),
    });
  }
  return {
    asked: ENABLE_TOOLS_NAME,
    publicName: ENABLE_TOOLS_NAME,
    wireName: lookup ? ENABLE_TOOLS_NAME : null,
    extension: null,
    rawName: null,
    status: "builtin",
    summary: lookup
      ? `${ENABLE_TOOLS_NAME} is the built-in tool of deferred loading: the model calls it with exact names to load deferred tools`
      : `${ENABLE_TOOLS_NAME} is not offered: deferral is off in this log (it is the built-in tool of deferral lookup)`,
    reasons,
    suggestions: [],
    calls: [],
  };
}

/** D9: positions of calls of `publicName` made while it was deferred and not enabled. */
function callsWhileDeferred(entries: readonly LogEntry[], publicName: string): Position[] {
  const out: Position[] = [];
  if (!entries.some((e) => e.event.origin)) return out;
  let state = initialState();
  for (const { event, position, label } of entries) {
    if (
      event.type === "ToolCallStarted" &&
      event.publicName === publicName &&
      event.owner !== null
    ) {
      const tool = getExtension(state, event.owner)?.tools.find((t) => t.publicName === publicName);
      if (tool && classifyTool(state, tool).class === "deferred") out.push(label ?? position);
    }
    state = evolve(state, event);
  }
  return out;
}

/** C4: the calls of `publicName` (or calls made with that exact name) in the log. */
function callHistory(entries: readonly LogEntry[], publicName: string): CallHistoryEntry[] {
  const out: CallHistoryEntry[] = [];
  const open = new Map<string, CallHistoryEntry>();
  for (const { event, position } of entries) {
    if (event.type === "ToolCallStarted" && (event.publicName ?? event.name) === publicName) {
      const entry: CallHistoryEntry = {
        callId: event.callId,
        position,
        finishedAt: null,
        outcome: null,
        reason: null,
        durationMs: null,
        error: null,
      };
      out.push(entry);
      open.set(event.callId, entry);
    } else if (event.type === "ToolCallFinished") {
      const entry = open.get(event.callId);
      if (!entry) continue;
      open.delete(event.callId);
      entry.finishedAt = position;
      entry.outcome = event.outcome;
      entry.reason = event.reason ?? null;
      entry.durationMs = event.durationMs;
      entry.error = event.error ?? null;
    }
  }
  return out;
}

function explainRegistryTool(
  entries: readonly LogEntry[],
  name: string,
): Omit<Explanation, "calls"> {
  let state = initialState();
  for (const step of foldEntries(entries)) state = step.state;
  const explanation = explainInState(state, entries, name);
  const registered = resolveTool(state, explanation.publicName, { includeHidden: true });
  return { ...explanation, wireName: registered.ok ? registered.wireName : null };
}

function explainInState(
  state: State,
  entries: readonly LogEntry[],
  name: string,
): Omit<Explanation, "calls" | "wireName"> {
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

  // Not in the registry: a collision loser, filtered, rejected, removed, or never seen.
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
    const { event } = step.entry;
    const position: Position = step.entry.label ?? step.entry.position;
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

function at(map: Map<string, Position>, key: string): Position[] {
  const p = map.get(key);
  return p === undefined ? [] : [p];
}
