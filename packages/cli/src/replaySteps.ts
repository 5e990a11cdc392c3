import {
  type Anomaly,
  compareBytes,
  type ExtensionState,
  findTool,
  initialState,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import { foldEntries } from "./foldEntries.js";
import type { LogEntry } from "./logEntry.js";
import { type PinChange, pinChanges } from "./pinChanges.js";
import { extensionKeys, getExtension } from "./stateExtensions.js";

/** What one event changed, in terms a user reads (E3). */
export type Change =
  | {
      kind: "extension_added";
      extension: string;
      name: string;
      extensionKind: string;
      hidden: boolean;
      replaced: boolean;
    }
  | { kind: "extension_removed"; extension: string; toolsDropped: number }
  | { kind: "version"; from: number; to: number }
  | { kind: "tools_added"; extension: string; names: string[] }
  | { kind: "tools_removed"; extension: string; names: string[] }
  | { kind: "tool_renamed"; extension: string; rawName: string; from: string; to: string }
  | { kind: "tools_rejected"; extension: string; tools: { rawName: string; reason: string }[] }
  | {
      kind: "wire_names";
      extension: string;
      /** R14: tools served to models under another name than their public name. */
      tools: { publicName: string; wireName: string }[];
    }
  | { kind: "collision"; publicName: string; winner: string; losers: string[] }
  | { kind: "collision_resolved"; publicName: string }
  | { kind: "stale_fetch_ignored"; extension: string; startedAtVersion: number; version: number }
  | { kind: "fetch_failed"; extension: string; error: string }
  | { kind: "partial_fetch"; extension: string; reason: string }
  | { kind: "deferral"; mode: string; alwaysLoad: string[] }
  | { kind: "enable_requested"; callId: string; names: string[] }
  | { kind: "enabled"; names: string[] }
  | { kind: "disabled"; names: string[] }
  | { kind: "pending_dropped"; callIds: string[] }
  | { kind: "compacted"; enabled: string[]; pending: string[] }
  | { kind: "enable_failed"; callId: string; code: string; message: string }
  | { kind: "anomaly"; anomaly: Anomaly["kind"]; callId: string }
  | { kind: "ignored"; reason: string }
  | {
      kind: "catalog_changed";
      extension: string;
      list: "prompts" | "resources";
      added: string[];
      removed: string[];
    }
  | { kind: "catalog_invalidated"; extension: string; list: "prompts" | "resources" }
  | {
      kind: "catalog_fetch_failed";
      extension: string;
      list: "prompts" | "resources";
      error: string;
    }
  | { kind: "host_started"; hostname: string; run: number }
  | { kind: "list_changed"; extension: string }
  | { kind: "host_invalidated" }
  | {
      kind: "conversation_started";
      client: string | null;
      transport: string | null;
      registryStream: string;
      resumed: boolean;
    }
  | { kind: "conversation_closed"; reason: string }
  | {
      kind: "call_started";
      callId: string;
      name: string;
      publicName: string | null;
      owner: string | null;
    }
  | {
      kind: "call_finished";
      callId: string;
      name: string;
      outcome: string;
      reason: string | null;
      durationMs: number;
      error: string | null;
    }
  | PinChange
  | { kind: "no_change" };

export interface ReplayStep {
  position: number;
  type: ToolledgerEvent["type"];
  /** The stream the event belongs to, in a conversation's log (C1). */
  stream?: string;
  /** Shown instead of the position for a registry event in a conversation's log (`h12`). */
  label?: string;
  /** A registry event a resumed conversation folded to catch up with another host's registry. */
  catchUp?: boolean;
  recordedAt?: string;
  /** The cache version after the event (R11). */
  version: number;
  changes: Change[];
}

/** Folds `entries` one by one, yielding each step with the diff it made and the state after it. */
export function* replaySteps(
  entries: Iterable<LogEntry>,
  from: State = initialState(),
): Generator<{ step: ReplayStep; state: State }> {
  let state = from;
  // Public names each extension's raw tools had when last fetched, so a refetch under a new
  // prefix (an extension re-added with `exposeUnprefixed` toggled) reads as a rename.
  const known = new Map<string, Map<string, string>>();
  for (const { entry, state: next, catchUp } of foldEntries([...entries], from)) {
    const changes = withRenames(diffStates(state, next, entry.event), next, known);
    const step: ReplayStep = {
      position: entry.position,
      type: entry.event.type,
      ...(entry.streamId === undefined ? {} : { stream: entry.streamId }),
      ...(entry.label === undefined ? {} : { label: entry.label }),
      ...(catchUp ? { catchUp } : {}),
      ...(entry.recordedAt === undefined ? {} : { recordedAt: entry.recordedAt }),
      version: next.version,
      changes,
    };
    yield { step, state: next };
    state = next;
  }
}

/** The changes between two consecutive states, `event` being what led from one to the other. */
export function diffStates(before: State, after: State, event: ToolledgerEvent): Change[] {
  const changes: Change[] = [];
  if (event.type === "Compacted") {
    // D7: what the compaction carries is the point of the event, changed or not.
    changes.push({
      kind: "compacted",
      enabled: [...after.enabled],
      pending: after.pending.map((p) => p.callId),
    });
  }
  // P2–P6: a pin event's decision is its point, whether or not the state moved.
  changes.push(...pinChanges(event));
  if (before === after) return changes.length > 0 ? changes : [{ kind: "no_change" }];
  // Conversation events leave the extensions object as it was: skip the per-extension diff.
  const keys =
    before.extensions === after.extensions
      ? new Set<string>()
      : new Set([...extensionKeys(before), ...extensionKeys(after)]);
  for (const key of [...keys].sort()) {
    const a = getExtension(before, key);
    const b = getExtension(after, key);
    if (a === b) continue;
    if (b && (!a || event.type === "ExtensionAdded")) {
      changes.push({
        kind: "extension_added",
        extension: key,
        name: b.name,
        extensionKind: b.kind,
        hidden: b.hidden,
        replaced: a !== undefined,
      });
    } else if (a && !b) {
      changes.push({ kind: "extension_removed", extension: key, toolsDropped: a.tools.length });
    }
    if (a && b && b.staleFetches > a.staleFetches && b.lastStaleFetch) {
      changes.push({ kind: "stale_fetch_ignored", extension: key, ...b.lastStaleFetch });
    }
    if (b && b.fetch.status === "failed" && a?.fetch !== b.fetch) {
      changes.push({ kind: "fetch_failed", extension: key, error: b.fetch.error ?? "" });
    }
    if (b && b.fetch.status === "partial" && a?.fetch !== b.fetch) {
      changes.push({ kind: "partial_fetch", extension: key, reason: b.fetch.error ?? "" });
    }
    if (b) catalogChanges(key, a, b, changes);
    if (a && b) toolChanges(key, a, b, changes);
    else if (b && b.tools.length > 0)
      changes.push({
        kind: "tools_added",
        extension: key,
        names: b.tools.map((t) => t.publicName).sort(compareBytes),
      });
    if (b && b.rejected !== a?.rejected && b.rejected.length > 0) {
      changes.push({
        kind: "tools_rejected",
        extension: key,
        tools: b.rejected.map((r) => ({ rawName: r.rawName, reason: r.reason })),
      });
    }
    if (b && b.tools !== a?.tools) {
      // R14: show both names of a tool whose served name differs, when it first gets it.
      const served = new Map((a?.tools ?? []).map((t) => [t.publicName, t.wireName] as const));
      const renamed = b.tools
        .filter((t) => t.wireName !== t.publicName && served.get(t.publicName) !== t.wireName)
        .map((t) => ({ publicName: t.publicName, wireName: t.wireName }));
      if (renamed.length > 0) changes.push({ kind: "wire_names", extension: key, tools: renamed });
    }
  }
  if (before.collisions !== after.collisions) {
    const names = new Set([...Object.keys(before.collisions), ...Object.keys(after.collisions)]);
    for (const name of [...names].sort()) {
      const was = own(before.collisions, name);
      const now = own(after.collisions, name);
      if (now && (!was || was.join("\u0000") !== now.join("\u0000"))) {
        const [winner, ...losers] = now;
        changes.push({ kind: "collision", publicName: name, winner: winner!, losers });
      } else if (was && !now) {
        changes.push({ kind: "collision_resolved", publicName: name });
      }
    }
  }
  if (before.version !== after.version)
    changes.push({ kind: "version", from: before.version, to: after.version });
  if (
    before.deferral.mode !== after.deferral.mode ||
    before.deferral.alwaysLoad.join("\u0000") !== after.deferral.alwaysLoad.join("\u0000")
  ) {
    changes.push({
      kind: "deferral",
      mode: after.deferral.mode,
      alwaysLoad: [...after.deferral.alwaysLoad],
    });
  }
  switch (event.type) {
    case "ToolsInvalidated":
      // R11: the extension that said tools/list_changed (its refetch follows as ToolsFetched),
      // or, without one, the host's own invalidate.
      changes.push(
        event.extension === undefined
          ? { kind: "host_invalidated" }
          : { kind: "list_changed", extension: event.extension },
      );
      break;
    case "HostStarted":
      changes.push({ kind: "host_started", hostname: event.hostname, run: after.host?.runs ?? 1 });
      break;
    case "ConversationStarted":
    case "ConversationResumed":
      changes.push({
        kind: "conversation_started",
        client: event.client ? `${event.client.name} ${event.client.version}` : null,
        transport: event.transport ?? null,
        registryStream: event.registryStream,
        resumed: event.type === "ConversationResumed",
      });
      break;
    case "ConversationClosed":
      changes.push({ kind: "conversation_closed", reason: event.reason });
      break;
    case "ToolCallStarted":
      changes.push({
        kind: "call_started",
        callId: event.callId,
        name: event.name,
        publicName: event.publicName ?? null,
        owner: event.owner ?? null,
      });
      break;
    case "ToolCallFinished": {
      const record = after.calls.recent.at(-1);
      changes.push({
        kind: "call_finished",
        callId: event.callId,
        name: record?.callId === event.callId ? (record.publicName ?? record.name) : "",
        outcome: event.outcome,
        reason: event.reason ?? null,
        durationMs: event.durationMs,
        error: event.error ?? null,
      });
      break;
    }
    default:
      break;
  }
  if (event.type === "EnableToolsRequested") {
    changes.push({ kind: "enable_requested", callId: event.callId, names: [...event.names] });
  }
  if (before.enabled !== after.enabled) {
    const was = new Set(before.enabled);
    const now = new Set(after.enabled);
    const added = after.enabled.filter((n) => !was.has(n));
    const removed = before.enabled.filter((n) => !now.has(n));
    if (added.length > 0) changes.push({ kind: "enabled", names: added });
    if (removed.length > 0) changes.push({ kind: "disabled", names: removed });
  }
  if (event.type === "Cleared" || event.type === "Compacted") {
    const now = new Set(after.pending.map((p) => p.callId));
    const dropped = before.pending.filter((p) => !now.has(p.callId)).map((p) => p.callId);
    if (dropped.length > 0) changes.push({ kind: "pending_dropped", callIds: dropped });
  }
  if (after.anomalyCount > before.anomalyCount) {
    const fresh = after.anomalies.slice(-(after.anomalyCount - before.anomalyCount));
    for (const a of fresh) {
      if (
        a.kind === "failed_response" &&
        event.type === "EnableToolsResponded" &&
        event.callId === a.callId
      ) {
        changes.push({
          kind: "enable_failed",
          callId: a.callId,
          code: event.error?.code ?? "FAILED",
          message: event.error?.message ?? "the request failed",
        });
      } else {
        changes.push({ kind: "anomaly", anomaly: a.kind, callId: a.callId });
      }
    }
  }
  if (after.ignoredCount > before.ignoredCount) {
    for (const i of after.ignored.slice(-(after.ignoredCount - before.ignoredCount))) {
      changes.push({ kind: "ignored", reason: i.reason });
    }
  }
  return changes.length > 0 ? changes : [{ kind: "no_change" }];
}

function withRenames(
  changes: Change[],
  after: State,
  known: Map<string, Map<string, string>>,
): Change[] {
  const out: Change[] = [];
  for (const c of changes) {
    if (c.kind !== "tools_added") {
      out.push(c);
      continue;
    }
    const ext = getExtension(after, c.extension);
    const names = known.get(c.extension) ?? new Map<string, string>();
    const added: string[] = [];
    for (const name of c.names) {
      const raw = ext ? findTool(ext, name)?.rawName : undefined;
      const old = raw === undefined ? undefined : names.get(raw);
      if (raw !== undefined && old !== undefined && old !== name) {
        out.push({
          kind: "tool_renamed",
          extension: c.extension,
          rawName: raw,
          from: old,
          to: name,
        });
      } else {
        added.push(name);
      }
    }
    if (added.length > 0) out.push({ ...c, names: added });
  }
  for (const c of out) {
    if (c.kind !== "tools_added" && c.kind !== "tool_renamed") continue;
    const ext = getExtension(after, c.extension);
    if (!ext) continue;
    const names = new Map<string, string>();
    for (const t of ext.tools) names.set(t.rawName, t.publicName);
    known.set(c.extension, names);
  }
  return out;
}

function toolChanges(key: string, a: ExtensionState, b: ExtensionState, out: Change[]): void {
  if (a.tools === b.tools) return;
  const rawOf = (ext: ExtensionState) => {
    const m = new Map<string, string>();
    for (const t of ext.tools) m.set(t.rawName, t.publicName);
    return m;
  };
  const beforeRaw = rawOf(a);
  const afterRaw = rawOf(b);
  const added: string[] = [];
  const removed: string[] = [];
  for (const [raw, name] of afterRaw) {
    const old = beforeRaw.get(raw);
    if (old === undefined) added.push(name);
    else if (old !== name)
      out.push({ kind: "tool_renamed", extension: key, rawName: raw, from: old, to: name });
  }
  for (const [raw, name] of beforeRaw) if (!afterRaw.has(raw)) removed.push(name);
  if (added.length > 0) out.push({ kind: "tools_added", extension: key, names: added.sort() });
  if (removed.length > 0)
    out.push({ kind: "tools_removed", extension: key, names: removed.sort() });
}

function own<T>(rec: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(rec, key) ? rec[key] : undefined;
}

/** G1: what a client listing prompts and resources through the gateway would see change. */
function catalogChanges(
  key: string,
  a: ExtensionState | undefined,
  b: ExtensionState,
  changes: Change[],
): void {
  const was = a?.catalog;
  const now = b.catalog;
  if (!now || was === now) return;
  const lists = [
    {
      list: "prompts" as const,
      before: was?.promptsList,
      after: now.promptsList,
      names: (c: typeof now | undefined) => c?.prompts.map((p) => p.publicName) ?? [],
    },
    {
      list: "resources" as const,
      before: was?.resourcesList,
      after: now.resourcesList,
      names: (c: typeof now | undefined) => [
        ...(c?.resources.map((r) => r.uri) ?? []),
        ...(c?.resourceTemplates.map((t) => t.uriTemplate) ?? []),
      ],
    },
  ];
  for (const { list, before, after, names } of lists) {
    if (before === after) continue;
    if (after.version !== (before?.version ?? 0)) {
      changes.push({ kind: "catalog_invalidated", extension: key, list });
      continue;
    }
    if (after.status === "failed" && after.fetchedVersion !== before?.fetchedVersion) {
      changes.push({
        kind: "catalog_fetch_failed",
        extension: key,
        list,
        error: after.error ?? "",
      });
    }
    const old = new Set(names(was));
    const cur = new Set(names(now));
    const added = [...cur].filter((n) => !old.has(n)).sort(compareBytes);
    const removed = [...old].filter((n) => !cur.has(n)).sort(compareBytes);
    if (added.length > 0 || removed.length > 0)
      changes.push({ kind: "catalog_changed", extension: key, list, added, removed });
  }
}
