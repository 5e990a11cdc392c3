import {
  fetchApplies,
  findTool,
  getExtension,
  isEnabled,
  nameToKey,
  type State,
} from "@toolledger/core";
import { withOrigin } from "./describeOrigin.js";
import { describeOther } from "./describeOtherEvent.js";
import { describePinEvent, isPinEvent } from "./describePinEvent.js";
import type { AnyEvent, DescribeContext, EventDescription } from "./eventDescription.js";

const LIST_LIMIT = 6;

function list(names: readonly string[]): string {
  if (names.length <= LIST_LIMIT) return names.join(", ");
  return `${names.slice(0, LIST_LIMIT).join(", ")}, … (+${names.length - LIST_LIMIT})`;
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const strs = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

/** The extension a public name belongs to: its prefix (R3), else an unprefixed extension that has it. */
function ownerOf(state: State, name: string): string {
  const i = name.indexOf("__");
  const prefix = nameToKey(i === -1 ? name : name.slice(0, i));
  const ext = getExtension(state, prefix);
  if (ext && findTool(ext, name)) return prefix;
  for (const key of state.unprefixed) {
    const u = getExtension(state, key);
    if (u && findTool(u, name)) return key;
  }
  return prefix;
}

/**
 * Describes the event at `index`, folded from `before` to `after`. Reads only the event and
 * the two states; `ctx` relates it to earlier events and is updated for later ones. Returns
 * the description and the index of the related event, if any.
 */
export function describeEvent(
  event: AnyEvent,
  index: number,
  before: State,
  after: State,
  ctx: DescribeContext,
): EventDescription & { related?: number } {
  const d = describeKnown(event, index, before, after, ctx);
  // An imported event says where it came from (issue 26): the one line ends with it.
  return withOrigin(d, event, before);
}

function describeKnown(
  event: AnyEvent,
  index: number,
  before: State,
  after: State,
  ctx: DescribeContext,
): EventDescription & { related?: number } {
  if (after.version !== before.version)
    ctx.versionSource.set(after.version, { index, type: event.type });
  if (isPinEvent(event)) return describePinEvent(event);
  const unchanged = before === after;
  switch (event.type) {
    case "ExtensionAdded": {
      const key = nameToKey(str(event.name) ?? "");
      const ext = getExtension(after, key);
      const was = getExtension(before, key);
      const hidden = ext?.hidden === true;
      const text = unchanged
        ? `extension ${key} added again with an identical config: no change`
        : `+ extension ${key} (${str(event.kind)}${hidden ? ", hidden" : ""}${event.exposeUnprefixed === true ? ", unprefixed" : ""})${was ? " replaced: config changed, tools dropped until refetched" : ""}`;
      return {
        extensions: [key],
        text,
        severity: was && !unchanged ? "warn" : "info",
        rules: hidden ? ["R6", "R8", "R1"] : ["R6", "R1"],
      };
    }
    case "ExtensionRemoved": {
      const key = nameToKey(str(event.extension) ?? "");
      const was = getExtension(before, key);
      return {
        extensions: [key],
        text: was
          ? `- extension ${key} removed with its ${was.tools.length} tool(s)`
          : `removal of unknown extension ${key}: no change`,
        severity: was ? "info" : "warn",
        rules: ["R7"],
      };
    }
    case "ToolsInvalidated": {
      const raw = str(event.extension);
      const key = raw === undefined || raw === "" ? undefined : nameToKey(raw);
      return {
        extensions: key === undefined ? [] : [key],
        text: unchanged
          ? `list change from unknown extension ${key}: no change`
          : `${key === undefined ? "host invalidated the tool cache" : `${key} sent tools/list_changed`}: version ${before.version} → ${after.version}`,
        severity: unchanged ? "warn" : "info",
        rules: ["R11"],
      };
    }
    case "ToolsFetched":
      return describeFetch(event, before, after, ctx);
    case "ToolsFetchFailed": {
      const key = nameToKey(str(event.extension) ?? "");
      const started = Number(event.startedAtVersion);
      const cause = ctx.versionSource.get(started);
      return {
        extensions: [key],
        text: `fetching ${key}'s tools failed${cause?.type === "ToolsInvalidated" ? " (refetch after a list change)" : ""}: ${str(event.error) ?? "unknown error"}`,
        severity: "error",
        rules: ["R9"],
        ...(cause === undefined ? {} : { related: cause.index }),
      };
    }
    case "DeferralConfigured": {
      const always = strs(event.alwaysLoad);
      return {
        extensions: [],
        text: `deferral ${str(event.mode)}${always.length > 0 ? `, always load ${list(always)}` : ""}`,
        severity: "info",
        rules: always.length > 0 ? ["D1", "D2"] : ["D1"],
      };
    }
    case "EnableToolsRequested": {
      const callId = str(event.callId) ?? "";
      const names = strs(event.names);
      const extensions = [...new Set(names.map((n) => ownerOf(before, n)))].sort();
      ctx.requests.set(callId, { index, names, extensions });
      return {
        extensions,
        text: `enable_tools ${callId} asks for ${names.length > 0 ? list(names) : "nothing"}`,
        severity: "info",
        rules: ["D5", "D6"],
      };
    }
    case "EnableToolsResponded": {
      const callId = str(event.callId) ?? "";
      const request = ctx.requests.get(callId);
      const related = request === undefined ? {} : { related: request.index };
      const extensions = request?.extensions ?? [];
      if (after.anomalyCount > before.anomalyCount) {
        const anomaly = after.anomalies.at(-1)?.kind;
        if (anomaly === "failed_response" && event.ok === false) {
          const error = event.error as { code?: string; message?: string } | undefined;
          return {
            extensions,
            text: `✗ enable_tools ${callId} failed (${error?.code ?? "FAILED"}): ${error?.message ?? "the request failed"}`,
            severity: "error",
            rules: ["D5", "D6"],
            ...related,
          };
        }
        return {
          extensions,
          text: `! anomaly: ${(anomaly ?? "unpaired response").replaceAll("_", " ")} (call id ${callId}); adds nothing`,
          severity: "warn",
          rules: ["D6"],
          ...related,
        };
      }
      const added = (request?.names ?? after.enabled).filter(
        (n) => isEnabled(after, n) && !isEnabled(before, n),
      );
      return {
        extensions,
        text: `✓ enable_tools ${callId} succeeded${added.length > 0 ? `: enabled ${list(added)}` : ": already eager, nothing new"}`,
        severity: "ok",
        rules: ["D6", "D5"],
        ...related,
      };
    }
    case "Compacted":
      return {
        extensions: [],
        text: `conversation compacted; carried: enabled ${after.enabled.length > 0 ? list(after.enabled) : "none"}${after.pending.length > 0 ? `, pending ${list(after.pending.map((p) => p.callId))}` : ""}`,
        severity: "info",
        rules: ["D7"],
      };
    case "Cleared":
      return {
        extensions: [],
        text: `/clear: ${before.enabled.length} enabled tool(s)${before.pending.length > 0 ? ` and ${before.pending.length} pending request(s)` : ""} dropped; the registry is untouched`,
        severity: "info",
        rules: ["D8"],
      };
    default:
      return describeOther(event, index, before, ctx);
  }
}

function describeFetch(
  event: AnyEvent,
  before: State,
  after: State,
  ctx: DescribeContext,
): EventDescription & { related?: number } {
  const key = nameToKey(str(event.extension) ?? "");
  const started = Number(event.startedAtVersion);
  const tools = Array.isArray(event.tools) ? event.tools.length : 0;
  const cause = ctx.versionSource.get(started);
  const related = cause === undefined ? {} : { related: cause.index };
  const prior = getExtension(before, key);
  if (!prior) {
    return {
      extensions: [key],
      text: `fetch for unknown extension ${key}: no change`,
      severity: "warn",
      rules: ["R9"],
    };
  }
  const scope = event.scope === "extension" ? "extension" : undefined;
  if (!fetchApplies(before, prior, started, scope)) {
    const since =
      scope === "extension" && started <= before.version
        ? `${key}'s tools were invalidated at version ${prior.invalidatedAt}`
        : `registry at ${before.version}`;
    return {
      extensions: [key],
      text: `stale fetch of ${key} ignored: started at version ${started}, ${since} (${tools} tool(s) listed)`,
      severity: "warn",
      rules: ["R11", "R9"],
      ...related,
    };
  }
  const ext = getExtension(after, key);
  const rejected = ext?.rejected.length ?? 0;
  const partial = event.complete === false;
  const collisions = Object.keys(after.collisions).length - Object.keys(before.collisions).length;
  const rules = ["R9", "R3"];
  if (collisions !== 0) rules.push("R10");
  const parts = [
    `${key} listed ${tools} tool(s), ${ext?.tools.length ?? 0} registered at version ${started}`,
  ];
  if (cause?.type === "ToolsInvalidated") parts.push("refetch after a list change");
  if (partial) parts.push(`partial: ${str(event.reason) ?? "a later page failed"}`);
  if (rejected > 0) parts.push(`${rejected} rejected`);
  const wire = Array.isArray(event.wireNames) ? event.wireNames.length : 0;
  if (wire > 0) {
    parts.push(`${wire} given a wire name model APIs accept`);
    rules.push("R14");
  }
  if (collisions > 0) parts.push(`${collisions} new collision(s)`);
  return {
    extensions: [key],
    text: parts.join("; "),
    severity: partial || rejected > 0 || collisions > 0 ? "warn" : "ok",
    rules,
    ...related,
  };
}
