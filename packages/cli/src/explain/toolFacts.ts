import { auditEnables, initialState, resolveTool, type State } from "@toolledger/core";
import { foldEntries } from "../session/foldEntries.js";
import type { LogEntry } from "../session/logEntry.js";
import { extensionKeys, getExtension } from "../session/stateExtensions.js";
import { auditedEvents } from "./auditedEvents.js";
import type { Position } from "./explanation.js";

/** An enable request that named the tool, and its paired response (D5, D6). */
export interface EnableRecord {
  callId: string;
  request: Position;
  response: Position | null;
  ok: boolean | null;
  error?: string;
}

/** What the log says about one public name. */
export interface Facts {
  extensionAdded: Map<string, Position>;
  fetched: Map<string, Position>;
  deferral: Position | null;
  enables: EnableRecord[];
  enabledBy: EnableRecord | null;
  carriedBy: Position | null;
  clearedAt: Position | null;
  lastSeen: Position | null;
  goneAt: { position: Position; type: string } | null;
  filteredAt: { position: Position; extension: string; raw: string } | null;
}

/**
 * The facts about `publicName`: its enable requests as the core's audit pairs them (D6), the
 * rest in one fold of the log, from the state changes each event made.
 */
export function collectFacts(entries: readonly LogEntry[], publicName: string): Facts {
  const facts: Facts = {
    extensionAdded: new Map(),
    fetched: new Map(),
    deferral: null,
    enables: enableRecords(entries, publicName),
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

/** D6: the log's requests that named the tool, paired as the reducer pairs them. */
function enableRecords(entries: readonly LogEntry[], publicName: string): EnableRecord[] {
  return auditEnables(auditedEvents(entries), { toolName: publicName })
    .requests.filter((r) => !r.carriedByCompaction)
    .map((r) => ({
      callId: r.callId,
      request: r.requested.position,
      response: r.responded?.position ?? null,
      ok: r.outcome === "enabled" ? true : r.outcome === "failed" ? false : null,
      ...(r.error ? { error: r.error.message } : {}),
    }));
}

function present(state: State, publicName: string): boolean {
  const r = resolveTool(state, publicName, { includeHidden: true });
  return r.ok && !r.recovered;
}

/** The position recorded for `key`, as a list to cite. */
export function at(map: Map<string, Position>, key: string): Position[] {
  const p = map.get(key);
  return p === undefined ? [] : [p];
}
