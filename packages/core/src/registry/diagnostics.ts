import { catalog } from "../catalog/catalog.js";
import type { Anomaly } from "../events/events.js";
import { hget, hkeys } from "../fold/hashDict.js";
import type { State } from "../fold/state.js";
import { winnerOf, wireWinner } from "../naming/nameOwners.js";
import { oversizedKind, oversizedMessage } from "./oversizedDefinition.js";

export type Diagnostic =
  | { kind: "collision"; publicName: string; winner: string; losers: string[]; message: string }
  | {
      kind: "stale_fetch";
      extension: string;
      count: number;
      startedAtVersion: number;
      version: number;
      message: string;
    }
  | { kind: "fetch_failed"; extension: string; error: string; message: string }
  | { kind: "partial_fetch"; extension: string; reason: string; message: string }
  | { kind: "rejected_tool"; extension: string; rawName: string; reason: string; message: string }
  | { kind: "anomaly"; anomaly: Anomaly["kind"]; callId: string; message: string }
  | { kind: "unknown_always_load"; name: string; message: string }
  | { kind: "ignored_event"; type: string; reason: string; message: string }
  | {
      kind: "catalog_conflict";
      what: "prompt" | "resource" | "resource_template";
      name: string;
      winner: string;
      losers: string[];
      message: string;
    }
  | {
      /** V3: a prompt, resource or template its server listed over the host's cap on one definition. */
      kind: "rejected_definition";
      extension: string;
      what: "prompt" | "resource" | "resource_template";
      name: string;
      reason: "oversized";
      message: string;
    }
  | {
      kind: "list_fetch_failed";
      extension: string;
      list: "prompts" | "resources";
      error: string;
      message: string;
    };

const anomalyText: Record<Anomaly["kind"], string> = {
  response_without_request: "an enable_tools response had no request",
  failed_response: "an enable_tools request failed",
  duplicate_response: "an enable_tools request was answered twice",
};

export interface DiagnosticsOptions {
  /** R8/R10: include diagnostics that name hidden extensions (host-internal use only). */
  includeHidden?: boolean;
}

/**
 * E3: everything the registry and the conversation have to report, in a stable order. A
 * diagnostic that names a hidden extension is reported only with `includeHidden` (R8, R10).
 */
export function diagnostics(state: State, options: DiagnosticsOptions = {}): Diagnostic[] {
  const includeHidden = options.includeHidden ?? false;
  const visible = (key: string) => includeHidden || hget(state.extensions, key)?.hidden !== true;
  const out: Diagnostic[] = [];
  for (const [publicName, all] of Object.entries(state.collisions).sort(([a], [b]) =>
    a < b ? -1 : 1,
  )) {
    // Hidden owners come last (R10), so dropping them never changes the winner.
    const owners = all.filter(visible);
    if (owners.length < 2) continue;
    const [winner, ...losers] = owners;
    out.push({
      kind: "collision",
      publicName,
      winner: winner!,
      losers,
      message: `${publicName} is produced by ${owners.join(", ")}; ${winner} wins (visible extensions before hidden ones, then by key), ${losers.join(", ")} lost it`,
    });
  }
  for (const key of hkeys(state.extensions).sort()) {
    if (!visible(key)) continue;
    const ext = hget(state.extensions, key)!;
    if (ext.fetch.status === "partial") {
      out.push({
        kind: "partial_fetch",
        extension: key,
        reason: ext.fetch.error ?? "",
        message: `the tool list of ${key} is partial (the tools gathered before it stopped are registered): ${ext.fetch.error}`,
      });
    }
    if (ext.fetch.status === "failed") {
      out.push({
        kind: "fetch_failed",
        extension: key,
        error: ext.fetch.error ?? "",
        message: `fetching the tools of ${key} failed: ${ext.fetch.error}`,
      });
    }
    for (const r of ext.rejected) {
      out.push({
        kind: "rejected_tool",
        extension: key,
        rawName: r.rawName,
        reason: r.reason,
        message: `${key}: ${r.message}`,
      });
    }
    if (ext.lastStaleFetch) {
      out.push({
        kind: "stale_fetch",
        extension: key,
        count: ext.staleFetches,
        ...ext.lastStaleFetch,
        message: `${ext.staleFetches} fetch(es) of ${key} raced an invalidation and were ignored (last started at version ${ext.lastStaleFetch.startedAtVersion}, arrived at ${ext.lastStaleFetch.version})`,
      });
    }
  }
  out.push(...catalogDiagnostics(state, includeHidden));
  for (const name of unknownAlwaysLoad(state)) {
    out.push({
      kind: "unknown_always_load",
      name,
      message: `always-load entry ${JSON.stringify(name)} names no current tool; it is kept in case the tool appears`,
    });
  }
  for (const a of state.anomalies) {
    out.push({
      kind: "anomaly",
      anomaly: a.kind,
      callId: a.callId,
      message: `${anomalyText[a.kind]} (call id ${a.callId})`,
    });
  }
  for (const i of state.ignored) {
    out.push({
      kind: "ignored_event",
      type: i.type,
      reason: i.reason,
      message: `${i.type} changed nothing: ${i.reason}`,
    });
  }
  return out;
}

/** D2: always-load entries that name no current tool (none while deferral is off: the list does not matter then). */
export function unknownAlwaysLoad(state: State): string[] {
  if (state.deferral.mode === "off") return [];
  return state.deferral.alwaysLoad.filter((name) => {
    const tool =
      winnerOf(state, name) ?? (state.wireNames.size > 0 ? wireWinner(state, name) : undefined);
    // A hidden tool counts as unknown: R8 keeps it out of what users and the model see.
    return tool === undefined || hget(state.extensions, tool.owner)?.hidden === true;
  });
}

/** G1: prompt names and resource URIs offered twice (the first in R10 order serves them), failed list fetches. */
function catalogDiagnostics(state: State, includeHidden: boolean): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const c of catalog(state, { includeHidden }).conflicts) {
    const [winner, ...losers] = c.owners;
    out.push({
      kind: "catalog_conflict",
      what: c.kind,
      name: c.name,
      winner: winner!,
      losers,
      message: `${c.kind.replace("_", " ")} ${c.name} is offered by ${c.owners.join(", ")}; ${winner} serves it, ${losers.join(", ")} ${losers.length === 1 ? "is" : "are"} not reached for it`,
    });
  }
  for (const key of hkeys(state.extensions).sort()) {
    const ext = hget(state.extensions, key)!;
    if ((ext.hidden && !includeHidden) || !ext.catalog) continue;
    for (const [list, status] of [
      ["prompts", ext.catalog.promptsList],
      ["resources", ext.catalog.resourcesList],
    ] as const) {
      for (const d of status.oversized ?? []) {
        const what = oversizedKind(list, d) as "prompt" | "resource" | "resource_template";
        out.push({
          kind: "rejected_definition",
          extension: key,
          what,
          name: d.name,
          reason: "oversized",
          message: `${key}: ${oversizedMessage(what, d)}`,
        });
      }
      if (status.status !== "failed") continue;
      out.push({
        kind: "list_fetch_failed",
        extension: key,
        list,
        error: status.error ?? "",
        message: `fetching the ${list} of ${key} failed: ${status.error}`,
      });
    }
  }
  return out;
}
