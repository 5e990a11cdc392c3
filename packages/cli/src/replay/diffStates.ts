import {
  compareBytes,
  type ExtensionState,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import { extensionKeys, getExtension } from "../session/stateExtensions.js";
import type { Change } from "./change.js";
import { eraChange } from "./eraChange.js";
import { oauthChange } from "./oauthChange.js";
import { pinChanges } from "./pinChanges.js";
import { searchedChange } from "./searchedChange.js";

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
  if (event.type === "ToolsSearched") return [searchedChange(before, event)];
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
    case "OAuthAuthorizationRequired":
    case "OAuthAuthorized":
    case "OAuthTokenRefreshed":
    case "OAuthAuthorizationFailed":
      changes.push(oauthChange(event)!);
      break;
    case "ExtensionEraDetected":
      changes.push(eraChange(event));
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
      changes.push({
        kind: "conversation_closed",
        reason: event.reason,
        ...(event.lastSeen === undefined ? {} : { lastSeen: event.lastSeen }),
      });
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
    case "TaskCreated": {
      const task = after.tasks.open.find((t) => t.taskId === event.taskId);
      changes.push({
        kind: "task_created",
        taskId: event.taskId,
        callId: event.callId,
        name: task?.publicName ?? null,
        runner: event.runner,
        requested: event.requested,
        ttlMs: event.ttlMs,
      });
      break;
    }
    case "TaskStatusChanged": {
      const was = before.tasks.open.find((t) => t.taskId === event.taskId);
      const since = was?.updatedAt ? Date.parse(was.updatedAt) : Number.NaN;
      const now = event.at ? Date.parse(event.at) : Number.NaN;
      changes.push({
        kind: "task_status",
        taskId: event.taskId,
        status: event.status,
        message: event.message,
        from: was?.status ?? null,
        forMs: Number.isFinite(since) && Number.isFinite(now) ? Math.max(0, now - since) : null,
      });
      break;
    }
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
