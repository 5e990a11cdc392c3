import type { Style } from "../output/style.js";
import { describeEraChange } from "./eraChange.js";
import { describeOAuthChange } from "./oauthChange.js";
import { formatPinChange } from "./pinChanges.js";
import type { Change } from "./replaySteps.js";

const LIST_LIMIT = 6;

function list(names: readonly string[]): string {
  if (names.length <= LIST_LIMIT) return names.join(", ");
  return `${names.slice(0, LIST_LIMIT).join(", ")}, … (+${names.length - LIST_LIMIT})`;
}

/** One line per change, for `replay`'s human output. */
export function formatChange(c: Change, style: Style): string {
  switch (c.kind) {
    case "pin_policy":
    case "pins_carried":
    case "definitions_pinned":
    case "definition_changed":
    case "definitions_coalescing":
    case "definitions_restored":
    case "definitions_approved":
    case "definitions_rejected":
      return formatPinChange(c, style);
    case "extension_added":
      return `${style.green("+")} extension ${c.extension} (${c.extensionKind}${c.hidden ? ", hidden" : ""})${c.replaced ? " replaced: config changed, tools dropped until refetched" : ""}`;
    case "extension_removed":
      return `${style.red("-")} extension ${c.extension} removed with its ${c.toolsDropped} tool(s)`;
    case "version":
      return `version ${c.from} → ${c.to}`;
    case "tools_added":
      return `${style.green("+")} ${c.names.length} tool(s) from ${c.extension}: ${list(c.names)}`;
    case "tools_removed":
      return `${style.red("-")} ${c.names.length} tool(s) from ${c.extension}: ${list(c.names)}`;
    case "tool_renamed":
      return `${style.yellow("~")} ${c.from} renamed to ${c.to} (${c.extension}'s ${c.rawName})`;
    case "tools_rejected":
      return `${style.yellow("!")} ${c.extension} sent tools that were not registered: ${list(c.tools.map((t) => `${t.rawName} (${t.reason})`))}`;
    case "wire_names":
      return `${style.yellow("~")} served to models as (R14): ${list(c.tools.map((t) => `${t.publicName} → ${t.wireName}`))}`;
    case "partial_fetch":
      return `${style.yellow("!")} ${c.extension}'s tool list is partial: ${c.reason}`;
    case "collision":
      return `${style.yellow("!")} collision on ${c.publicName}: ${c.winner} wins, ${c.losers.join(", ")} lost it`;
    case "collision_resolved":
      return `collision on ${c.publicName} resolved`;
    case "stale_fetch_ignored":
      return `${style.yellow("!")} stale fetch of ${c.extension} ignored (started at version ${c.startedAtVersion}, registry at ${c.version})`;
    case "fetch_failed":
      return `${style.red("!")} fetching ${c.extension}'s tools failed: ${c.error}`;
    case "deferral":
      return `deferral ${c.mode}${c.alwaysLoad.length > 0 ? `, always load ${list(c.alwaysLoad)}` : ""}`;
    case "enable_requested":
      return `enable_tools ${c.callId} asks for ${c.names.length > 0 ? list(c.names) : "nothing"}`;
    case "enabled":
      return `${style.green("+")} enabled ${list(c.names)}`;
    case "disabled":
      return `${style.red("-")} no longer enabled: ${list(c.names)}`;
    case "compacted":
      return `conversation compacted; carried: enabled ${c.enabled.length > 0 ? list(c.enabled) : "none"}${c.pending.length > 0 ? `, pending ${list(c.pending)}` : ""}`;
    case "pending_dropped":
      return `pending request(s) dropped: ${list(c.callIds)}`;
    case "enable_failed":
      return `${style.red("✗")} enable_tools ${c.callId} failed (${c.code}): ${c.message}`;
    case "anomaly":
      return `${style.yellow("!")} anomaly: ${c.anomaly.replaceAll("_", " ")} (call id ${c.callId})`;
    case "ignored":
      return `${style.dim("ignored:")} ${c.reason}`;
    case "list_changed":
      return `${c.extension} said tools/list_changed`;
    case "host_invalidated":
      return "the host invalidated every extension's tools";
    case "catalog_changed":
      return `${c.extension}'s ${c.list}: ${[
        ...(c.added.length > 0 ? [`${style.green("+")} ${list(c.added)}`] : []),
        ...(c.removed.length > 0 ? [`${style.red("-")} ${list(c.removed)}`] : []),
      ].join("; ")}`;
    case "catalog_invalidated":
      return `${c.extension}'s ${c.list} changed on the server (list_changed); refetch pending`;
    case "catalog_fetch_failed":
      return `${style.red("!")} fetching ${c.extension}'s ${c.list} failed: ${c.error}`;
    case "oauth":
      return `${c.event === "failed" ? style.red("!") : c.event === "required" ? style.yellow("?") : style.green("✓")} ${describeOAuthChange(c)}`;
    case "era":
      return describeEraChange(c);
    case "host_started":
      return `host ${c.hostname} started${c.run > 1 ? ` (run ${c.run}: a resume)` : ""}`;
    case "conversation_started":
      return `${c.resumed ? "conversation resumed" : "conversation started"}${c.client ? ` with ${c.client}` : ""}${c.transport ? ` over ${c.transport}` : ""} on registry ${c.registryStream}`;
    case "conversation_closed":
      // L3: its gateway died; a later process ended it.
      return c.reason === "lost"
        ? `conversation lost: its gateway stopped without closing it${c.lastSeen ? ` (last seen ${c.lastSeen})` : ""}; calls it left running end unknown`
        : `conversation closed: ${c.reason}`;
    case "call_started":
      return `call ${c.name}${c.publicName === null ? ` ${style.dim("(did not resolve)")}` : c.publicName !== c.name ? ` → ${c.publicName}` : ""}${c.owner ? ` on ${c.owner}` : ""} ${style.dim(`(${c.callId.slice(0, 8)})`)}`;
    case "call_finished": {
      const mark =
        c.outcome === "ok"
          ? style.green("✓")
          : c.outcome === "refused"
            ? style.yellow("⊘")
            : style.red("✗");
      const what = c.name === "" ? `call ${c.callId.slice(0, 8)}` : c.name;
      return `${mark} ${what} ${c.outcome}${c.reason ? ` (${c.reason})` : ""} in ${formatMs(c.durationMs)}${c.error ? `: ${oneLine(c.error)}` : ""}`;
    }
    case "searched":
      return c.error !== null
        ? `${style.yellow("?")} search ${JSON.stringify(c.query)} refused: ${oneLine(c.error)}${c.reproduced ? "" : ` ${style.red("(not reproduced)")}`}`
        : `${style.green("?")} search ${JSON.stringify(c.query)} → ${c.results.length > 0 ? list(c.results) : "nothing"} ${c.reproduced ? style.dim("(reproduced)") : style.red(`(NOT reproduced: now ${list(c.resultsNow ?? [])})`)}`;
    case "task_created":
      return `task ${c.taskId.slice(0, 8)} created for ${c.name ?? "a call"} ${style.dim(`(${c.callId.slice(0, 8)})`)}, run by ${c.runner === "server" ? "its server" : "the gateway"}${c.requested ? "" : " on the client's behalf (a plain call of a tool that requires a task)"}${c.ttlMs === null ? "" : `, kept ${formatDuration(c.ttlMs)}`}`;
    case "task_status": {
      const mark =
        c.status === "completed"
          ? style.green("✓")
          : c.status === "working" || c.status === "input_required"
            ? "·"
            : style.red("✗");
      return `${mark} task ${c.taskId.slice(0, 8)} ${c.status.replaceAll("_", " ")}${c.message ? `: ${oneLine(c.message)}` : ""}${c.from && c.forMs !== null ? style.dim(` (after ${formatDuration(c.forMs)} ${c.from.replaceAll("_", " ")})`) : ""}`;
    }
    case "no_change":
      return style.dim("no change");
    default: {
      const unreachable: never = c;
      return unreachable;
    }
  }
}

/** A task's durations run to minutes: seconds past one. */
function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

function formatMs(ms: number): string {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

function oneLine(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > 160 ? `${t.slice(0, 159)}…` : t;
}
