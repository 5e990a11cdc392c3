import { evolveCatalog } from "./_evolveCatalog.js";
import { emptyHashDict, hfromKeys, hget, hhas, hremove, hset } from "./_hashDict.js";
import { assignWireNames, hasRenamed, updateCollisions, updateWireIndex } from "./_registry.js";
import { sameTool } from "./_sameJson.js";
import { compareBytes, sortBytewise } from "./compareBytes.js";
import type {
  Anomaly,
  CallOutcome,
  Compacted,
  ConversationClosed,
  ConversationResumed,
  ConversationStarted,
  DeferralConfigured,
  EnableToolsRequested,
  EnableToolsResponded,
  ExtensionAdded,
  ExtensionRemoved,
  HostStarted,
  PromptsFetched,
  PromptsInvalidated,
  ResourcesFetched,
  ResourcesInvalidated,
  ToolCallFinished,
  ToolCallStarted,
  ToolledgerEvent,
  ToolsFetched,
  ToolsFetchFailed,
  ToolsInvalidated,
} from "./events.js";
import { evolveAuthorization } from "./evolveAuthorization.js";
import { isMcpToolDefinition, mcpToolProblem } from "./mcpToolDefinition.js";
import { nameToKey } from "./nameToKey.js";
import {
  CALL_HISTORY_LIMIT,
  type CallRecord,
  type CallSummary,
  DIAGNOSTIC_HISTORY_LIMIT,
  type ExtensionState,
  type FetchStatus,
  IN_FLIGHT_LIMIT,
  NO_CALL_OUTCOMES,
  type RegisteredTool,
  type RejectedTool,
  type State,
  type ToolCallStats,
} from "./state.js";
import { MAX_WIRE_NAME_LENGTH, wireSafe } from "./wireName.js";

/**
 * The reducer (E2): pure and total. It folds what was decided and never re-validates;
 * when an event changes nothing it returns the same state object.
 */
export function evolve(state: State, event: ToolledgerEvent): State {
  switch (event.type) {
    case "ExtensionAdded":
      return extensionAdded(state, event);
    case "ExtensionRemoved":
      return extensionRemoved(state, event);
    case "ToolsInvalidated":
      return toolsInvalidated(state, event);
    case "ToolsFetched":
      return toolsFetched(state, event);
    case "ToolsFetchFailed":
      return toolsFetchFailed(state, event);
    case "DeferralConfigured":
      return deferralConfigured(state, event);
    case "EnableToolsRequested":
      return enableRequested(state, event);
    case "EnableToolsResponded":
      return enableResponded(state, event);
    case "Compacted":
      return compacted(state, event);
    case "Cleared":
      return cleared(state);
    case "PromptsInvalidated":
    case "PromptsFetched":
    case "ResourcesInvalidated":
    case "ResourcesFetched":
      return catalogChanged(state, event);
    case "HostStarted":
      return hostStarted(state, event);
    case "ConversationStarted":
    case "ConversationResumed":
      return conversationOpened(state, event);
    case "ConversationClosed":
      return conversationClosed(state, event);
    case "ToolCallStarted":
      return callStarted(state, event);
    case "ToolCallFinished":
      return callFinished(state, event);
    case "OAuthAuthorizationRequired":
    case "OAuthAuthorized":
    case "OAuthTokenRefreshed":
    case "OAuthAuthorizationFailed":
      return onExtension(state, event, evolveAuthorization);
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/** R6: add, no-op on an identical config, replace (dropping tools) on a different one. */
function extensionAdded(state: State, e: ExtensionAdded): State {
  const key = nameToKey(e.name);
  if (key === "")
    return ignore(state, e.type, `extension name ${JSON.stringify(e.name)} has an empty key`);
  const existing = hget(state.extensions, key);
  const hidden = e.hidden || key.startsWith("_");
  if (
    existing &&
    existing.name === e.name &&
    existing.kind === e.kind &&
    existing.exposeUnprefixed === e.exposeUnprefixed &&
    existing.hidden === hidden &&
    existing.configFingerprint === e.configFingerprint &&
    sameStrings(existing.availableTools, e.availableTools)
  ) {
    return state;
  }
  const ext: ExtensionState = {
    key,
    name: e.name,
    kind: e.kind,
    exposeUnprefixed: e.exposeUnprefixed,
    hidden,
    availableTools: e.availableTools,
    configFingerprint: e.configFingerprint,
    fetch: { status: "never", version: null, error: null },
    tools: [],
    rejected: [],
    staleFetches: 0,
    lastStaleFetch: null,
  };
  return replaceExtension(state, key, existing, ext, state.version + 1);
}

/** R7 */
function extensionRemoved(state: State, e: ExtensionRemoved): State {
  const key = nameToKey(e.extension);
  const existing = hget(state.extensions, key);
  if (!existing) return ignore(state, e.type, `no extension ${JSON.stringify(key)}`);
  return replaceExtension(state, key, existing, undefined, state.version + 1);
}

/** R11: an extension said tools/list_changed; without one, the host's own invalidate. */
function toolsInvalidated(state: State, e: ToolsInvalidated): State {
  // Most of a long log: a key as written by the decider is found as is (R1 keys are fixed
  // points of nameToKey), so only another spelling pays for normalising.
  if (
    e.extension !== undefined &&
    !hget(state.extensions, e.extension) &&
    !hget(state.extensions, nameToKey(e.extension))
  )
    return ignore(state, e.type, `no extension ${JSON.stringify(nameToKey(e.extension))}`);
  return bumpVersion(state);
}

/** `update(state, { version: version + 1 })`, without the changes object, for the commonest event. */
function bumpVersion(state: State): State {
  return {
    reducerVersion: state.reducerVersion,
    ownerMetaKey: state.ownerMetaKey,
    version: state.version + 1,
    extensions: state.extensions,
    unprefixed: state.unprefixed,
    wireNames: state.wireNames,
    collisions: state.collisions,
    deferral: state.deferral,
    enabled: state.enabled,
    pending: state.pending,
    answered: state.answered,
    anomalies: state.anomalies,
    anomalyCount: state.anomalyCount,
    ignored: state.ignored,
    ignoredCount: state.ignoredCount,
    host: state.host,
    conversation: state.conversation,
    calls: state.calls,
  };
}

/** R9, R11: register a fetch that started at the current version; a stale one changes nothing. */
function toolsFetched(state: State, e: ToolsFetched): State {
  const key = nameToKey(e.extension);
  const ext = hget(state.extensions, key);
  if (!ext) return ignore(state, e.type, `no extension ${JSON.stringify(key)}`);
  if (e.startedAtVersion !== state.version) return staleFetch(state, ext, e.startedAtVersion);

  const allowed = ext.availableTools.length > 0 ? new Set(ext.availableTools) : null;
  // R3; an extension key is always wire-safe (R1), so only the raw name needs checking (R14).
  const prefix = ext.exposeUnprefixed ? "" : `${key}__`;
  // The registered tools, or those before a failed fetch emptied the extension.
  const previous = ext.tools.length > 0 ? ext.tools : (lastRegistered.get(ext) ?? ext.tools);
  let byName: Map<string, RegisteredTool> | null = null;
  let tools: RegisteredTool[] = [];
  // Names registered so far, kept only once the list leaves the previous one's order (until
  // then they are the previous list's first names, distinct by construction).
  let seen: Set<string> | null = null;
  let rejected: RejectedTool[] = [];
  let allFit = true;
  for (const raw of e.tools) {
    const rawName = raw.name;
    if (allowed && !allowed.has(rawName)) continue;
    // A tool listed again unchanged keeps its registered object (checked, named, in the old
    // generation already): the refetch's copy dies young. Most refetches change nothing.
    const next: RegisteredTool | undefined = previous[tools.length];
    // The same object: a list reused by the log's reader (createLogLineParser) or a host.
    if (
      seen === null &&
      next !== undefined &&
      (next.raw === raw || (next.rawName === rawName && sameTool(next.raw, raw)))
    ) {
      if (next.wireName !== next.publicName) allFit = false;
      tools.push(next);
      continue;
    }
    if (seen === null) seen = new Set(tools.map((t) => t.rawName));
    byName ??= new Map(previous.map((t) => [t.rawName, t]));
    const old = byName.get(rawName);
    if (old !== undefined && !seen.has(rawName) && sameTool(old.raw, raw)) {
      seen.add(rawName);
      if (old.wireName !== old.publicName) allFit = false;
      tools.push(old);
      continue;
    }
    // Issue 10.3: one malformed tool in a served list makes SDK clients reject the whole list.
    if (!isMcpToolDefinition(raw)) {
      rejected.push({
        rawName,
        reason: "malformed",
        message: `tool ${JSON.stringify(rawName)} is not a valid MCP tool (${mcpToolProblem(raw)}); it is not registered or served`,
      });
      continue;
    }
    if (seen.has(rawName)) {
      rejected.push({
        rawName,
        reason: "duplicate",
        message: `the server listed ${JSON.stringify(rawName)} more than once; the first is kept`,
      });
      continue;
    }
    seen.add(rawName);
    const publicName = prefix === "" ? rawName : prefix + rawName;
    if (
      allFit &&
      !(publicName.length <= MAX_WIRE_NAME_LENGTH && rawName !== "" && wireSafe(rawName))
    )
      allFit = false;
    // A view of the raw tool: its served definition is derived when asked for (servedTool).
    tools.push({ publicName, wireName: publicName, rawName, owner: key, raw });
  }
  // R14: the common case (every name fits, nothing recorded, no renamed tool anywhere) costs nothing more.
  // A tool kept from the previous list may still get another wire name (a new budget).
  let renamed = false;
  if (!allFit || e.wireNames !== undefined || state.wireNames.size > 0) {
    const recorded =
      e.wireNames === undefined ? null : new Map(e.wireNames.map((w) => [w.rawName, w.wireName]));
    const wires = assignWireNames(
      state.extensions,
      state.unprefixed,
      state.wireNames,
      ext,
      tools,
      recorded,
      MAX_WIRE_NAME_LENGTH,
    );
    // Registered objects are shared with earlier states: a changed name makes a new one.
    tools = tools.map((t, i) => {
      if (t.wireName === wires[i]) return t;
      renamed = true;
      return { ...t, wireName: wires[i]! };
    });
  }
  // The same tools as before keep the same list, so its sorted view and index stay cached.
  if (seen === null && !renamed && tools.length === previous.length)
    tools = previous as RegisteredTool[];
  if (rejected.length === 0 && ext.rejected.length === 0) rejected = ext.rejected as RejectedTool[];
  // R9: a partial fetch registers what was gathered and says why it stopped.
  const fetch: FetchStatus =
    e.complete === false
      ? { status: "partial", version: e.startedAtVersion, error: e.reason ?? "" }
      : { status: "ok", version: e.startedAtVersion, error: null };
  const next = withFetch(ext, fetch, tools, rejected);
  return replaceExtension(state, key, ext, next, state.version);
}

/** R9: a failed fetch leaves the extension with no tools and a diagnostic. */
function toolsFetchFailed(state: State, e: ToolsFetchFailed): State {
  const key = nameToKey(e.extension);
  const ext = hget(state.extensions, key);
  if (!ext) return ignore(state, e.type, `no extension ${JSON.stringify(key)}`);
  if (e.startedAtVersion !== state.version) return staleFetch(state, ext, e.startedAtVersion);
  const next = withFetch(
    ext,
    { status: "failed", version: e.startedAtVersion, error: e.error },
    [],
    [],
  );
  remember(ext, next);
  return replaceExtension(state, key, ext, next, state.version);
}

/**
 * The tools an extension registered before a failed fetch emptied it, so the fetch that
 * recovers it can keep their objects (see toolsFetched). A cache beside the state, keyed by
 * the immutable extension object: a state read back from JSON only loses the reuse.
 */
const lastRegistered = new WeakMap<ExtensionState, readonly RegisteredTool[]>();

function remember(before: ExtensionState, after: ExtensionState): void {
  const tools = before.tools.length > 0 ? before.tools : lastRegistered.get(before);
  if (tools) lastRegistered.set(after, tools);
}

/**
 * The extension after a fetch: copied, then assigned (a spread literal that redefines keys
 * takes V8's slow path, and this runs for every fetch); fields added later are kept.
 */
function withFetch(
  ext: ExtensionState,
  fetch: FetchStatus,
  tools: readonly RegisteredTool[],
  rejected: readonly RejectedTool[],
): ExtensionState {
  const next = { ...ext };
  next.fetch = fetch;
  next.tools = tools;
  next.rejected = rejected;
  return next;
}

function staleFetch(state: State, ext: ExtensionState, startedAtVersion: number): State {
  const next: ExtensionState = {
    ...ext,
    staleFetches: ext.staleFetches + 1,
    lastStaleFetch: { startedAtVersion, version: state.version },
  };
  if (ext.tools.length === 0) remember(ext, next);
  return update(state, { extensions: hset(state.extensions, ext.key, next) });
}

function deferralConfigured(state: State, e: DeferralConfigured): State {
  if (e.mode === state.deferral.mode && sameStrings(e.alwaysLoad, state.deferral.alwaysLoad)) {
    return state;
  }
  return update(state, { deferral: { mode: e.mode, alwaysLoad: e.alwaysLoad } });
}

/** D6: a request waits for its response; only a successful paired response enables. */
function enableRequested(state: State, e: EnableToolsRequested): State {
  if (state.pending.some((p) => p.callId === e.callId)) {
    // A repeated call id while its request is pending: one response answers both.
    const pending = state.pending.map((p) =>
      p.callId === e.callId ? { callId: p.callId, names: [...p.names, ...e.names] } : p,
    );
    return update(state, { pending });
  }
  return update(state, { pending: [...state.pending, { callId: e.callId, names: e.names }] });
}

function enableResponded(state: State, e: EnableToolsResponded): State {
  const index = state.pending.findIndex((p) => p.callId === e.callId);
  if (hhas(state.answered, e.callId)) {
    // A call id is answered once: a later response adds nothing, even to a request that
    // reused the id (it ends that request, which no response can validly answer).
    const pending = index === -1 ? state.pending : state.pending.filter((_, i) => i !== index);
    return withAnomaly(update(state, { pending }), {
      kind: "duplicate_response",
      callId: e.callId,
    });
  }
  if (index === -1) {
    return withAnomaly(state, { kind: "response_without_request", callId: e.callId });
  }
  const request = state.pending[index]!;
  const pending = state.pending.filter((_, i) => i !== index);
  const answered = hset(state.answered, e.callId, true as const);
  if (!e.ok)
    return withAnomaly(update(state, { pending, answered }), {
      kind: "failed_response",
      callId: e.callId,
    });
  return update(state, { pending, answered, enabled: union(state.enabled, request.names) });
}

/** D7: the conversation-derived state is carried by the event, so replay can start here. */
function compacted(state: State, e: Compacted): State {
  const enabled = sortBytewise([...new Set(e.enabled)], (n) => n);
  const { pending, anomalies } = state;
  // A compaction of the current state changes nothing, so the reducer keeps the same object.
  const unchanged =
    sameStrings(enabled, state.enabled) &&
    e.pending.length === pending.length &&
    e.pending.every(
      (p, i) => p.callId === pending[i]!.callId && sameStrings(p.names, pending[i]!.names),
    ) &&
    e.answered.length === state.answered.size &&
    e.answered.every((id) => hhas(state.answered, id)) &&
    e.anomalyCount === state.anomalyCount &&
    e.anomalies.length === anomalies.length &&
    e.anomalies.every((a, i) => a.kind === anomalies[i]!.kind && a.callId === anomalies[i]!.callId);
  if (unchanged) return state;
  const answered = hfromKeys(e.answered, true as const);
  return update(state, {
    enabled,
    pending: e.pending,
    answered,
    anomalies: e.anomalies,
    anomalyCount: e.anomalyCount,
  });
}

/** D8: `/clear` empties the enabled set and pending requests; the registry is untouched. */
function cleared(state: State): State {
  if (state.enabled.length === 0 && state.pending.length === 0 && state.answered.size === 0) {
    return state;
  }
  return update(state, { enabled: [], pending: [], answered: emptyHashDict() });
}

/** G1: an extension's prompt or resource list; never touches tools or the cache version. */
function catalogChanged(
  state: State,
  e: PromptsInvalidated | PromptsFetched | ResourcesInvalidated | ResourcesFetched,
): State {
  const key = nameToKey(e.extension);
  const ext = hget(state.extensions, key);
  if (!ext) return ignore(state, e.type, `no extension ${JSON.stringify(key)}`);
  const next = evolveCatalog(ext, e, state.ownerMetaKey);
  return next === ext ? state : update(state, { extensions: hset(state.extensions, key, next) });
}

/** A family's event that changes one extension and nothing else (an unknown one is ignored). */
function onExtension<E extends ToolledgerEvent & { extension: string }>(
  state: State,
  e: E,
  evolveOne: (ext: ExtensionState, e: E) => ExtensionState,
): State {
  const key = nameToKey(e.extension);
  const ext = hget(state.extensions, key);
  if (!ext) return ignore(state, e.type, `no extension ${JSON.stringify(key)}`);
  const next = evolveOne(ext, e);
  return next === ext ? state : update(state, { extensions: hset(state.extensions, key, next) });
}

/** C1: a host run began; the registry itself is untouched. */
function hostStarted(state: State, e: HostStarted): State {
  return update(state, {
    host: {
      hostname: e.hostname,
      pid: e.pid ?? null,
      toolledgerVersion: e.toolledgerVersion ?? null,
      startedAt: e.at ?? null,
      runs: (state.host?.runs ?? 0) + 1,
    },
  });
}

/** C3/C5: a conversation starts, or is reopened; either way it is open afterwards. */
function conversationOpened(state: State, e: ConversationStarted | ConversationResumed): State {
  const before = state.conversation;
  const resumed = e.type === "ConversationResumed";
  return update(state, {
    conversation: {
      registryStream: e.registryStream,
      client: e.client ?? before?.client ?? null,
      protocolVersion: e.protocolVersion ?? before?.protocolVersion ?? null,
      transport: e.transport ?? before?.transport ?? null,
      hostname: e.hostname ?? before?.hostname ?? null,
      startedAt: resumed ? (before?.startedAt ?? e.at ?? null) : (e.at ?? null),
      status: "open",
      closedAt: null,
      closedReason: null,
      resumes: (before?.resumes ?? 0) + (resumed ? 1 : 0),
    },
  });
}

/** C3: the conversation's session ended. A legacy stream gets a minimal record. */
function conversationClosed(state: State, e: ConversationClosed): State {
  const before = state.conversation;
  return update(state, {
    conversation: {
      registryStream: before?.registryStream ?? "",
      client: before?.client ?? null,
      protocolVersion: before?.protocolVersion ?? null,
      transport: before?.transport ?? null,
      hostname: before?.hostname ?? null,
      startedAt: before?.startedAt ?? null,
      status: "closed",
      closedAt: e.at ?? null,
      closedReason: e.reason,
      resumes: before?.resumes ?? 0,
    },
  });
}

/** C4: a call is in flight until it finishes; the oldest is dropped past the bound. */
function callStarted(state: State, e: ToolCallStarted): State {
  const calls = state.calls;
  const inFlight = calls.inFlight.filter((c) => c.callId !== e.callId);
  inFlight.push({
    callId: e.callId,
    name: e.name,
    publicName: e.publicName ?? null,
    owner: e.owner ?? null,
    at: e.at ?? null,
  });
  if (inFlight.length > IN_FLIGHT_LIMIT) inFlight.splice(0, inFlight.length - IN_FLIGHT_LIMIT);
  return update(state, { calls: { ...calls, started: calls.started + 1, inFlight } });
}

/** C4: counts the outcome (per tool when the call resolved) and keeps the latest few calls. */
function callFinished(state: State, e: ToolCallFinished): State {
  const calls = state.calls;
  const index = calls.inFlight.findIndex((c) => c.callId === e.callId);
  const started = index === -1 ? undefined : calls.inFlight[index];
  const inFlight = index === -1 ? calls.inFlight : calls.inFlight.filter((_, i) => i !== index);
  const record: CallRecord = {
    callId: e.callId,
    name: started?.name ?? "",
    publicName: started?.publicName ?? null,
    owner: started?.owner ?? null,
    outcome: e.outcome,
    reason: e.reason ?? null,
    durationMs: e.durationMs,
    at: e.at ?? null,
  };
  let byTool = calls.byTool;
  if (record.publicName !== null) {
    const before = hget(byTool, record.publicName);
    const stats: ToolCallStats = {
      total: (before?.total ?? 0) + 1,
      outcomes: countOutcome(before?.outcomes ?? NO_CALL_OUTCOMES, e.outcome),
      lastOutcome: e.outcome,
    };
    byTool = hset(byTool, record.publicName, stats);
  }
  const recent =
    calls.recent.length >= CALL_HISTORY_LIMIT ? calls.recent.slice(1) : [...calls.recent];
  recent.push(record);
  const next: CallSummary = {
    started: calls.started,
    finished: calls.finished + 1,
    outcomes: countOutcome(calls.outcomes, e.outcome),
    byTool,
    recent,
    inFlight,
  };
  return update(state, { calls: next });
}

function countOutcome(
  counts: Readonly<Record<CallOutcome, number>>,
  outcome: CallOutcome,
): Readonly<Record<CallOutcome, number>> {
  const next = { ...counts };
  next[outcome] += 1;
  return next;
}

function replaceExtension(
  state: State,
  key: string,
  before: ExtensionState | undefined,
  after: ExtensionState | undefined,
  version: number,
): State {
  const extensions = after ? hset(state.extensions, key, after) : hremove(state.extensions, key);
  const wasUnprefixed = before?.exposeUnprefixed ?? false;
  const isUnprefixed = after?.exposeUnprefixed ?? false;
  let unprefixed = state.unprefixed;
  if (wasUnprefixed && !isUnprefixed) unprefixed = unprefixed.filter((k) => k !== key);
  if (!wasUnprefixed && isUnprefixed) unprefixed = [...unprefixed, key].sort();
  const collisions =
    wasUnprefixed === isUnprefixed && sameNames(before?.tools, after?.tools)
      ? state.collisions
      : updateCollisions(state.collisions, extensions, unprefixed, changedNames(before, after));
  const wireNames =
    hasRenamed(before?.tools) || hasRenamed(after?.tools)
      ? updateWireIndex(
          state.wireNames,
          extensions,
          unprefixed,
          key,
          before?.tools ?? [],
          after?.tools ?? [],
        )
      : state.wireNames;
  return update(state, { version, extensions, unprefixed, collisions, wireNames });
}

function withAnomaly(state: State, anomaly: Anomaly): State {
  return update(state, {
    anomalies: appendBounded(state.anomalies, anomaly),
    anomalyCount: state.anomalyCount + 1,
  });
}

function ignore(state: State, type: string, reason: string): State {
  return update(state, {
    ignored: appendBounded(state.ignored, { type, reason }),
    ignoredCount: state.ignoredCount + 1,
  });
}

function appendBounded<T>(list: readonly T[], item: T): readonly T[] {
  const next = [...list, item];
  return next.length > DIAGNOSTIC_HISTORY_LIMIT
    ? next.slice(next.length - DIAGNOSTIC_HISTORY_LIMIT)
    : next;
}

/**
 * Sorted, de-duplicated union; returns `base` itself when nothing is added. Binary-search
 * inserts into a copy: no set of the whole enabled list is built per response.
 */
function union(base: readonly string[], add: readonly string[]): readonly string[] {
  let out: string[] | null = null;
  for (const name of add) {
    const list = out ?? base;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareBytes(list[mid]!, name) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo < list.length && list[lo] === name) continue;
    out ??= base.slice();
    out.splice(lo, 0, name);
  }
  return out ?? base;
}

/** Only names an extension gained or lost can change owner lists (R10). */
function changedNames(
  before: ExtensionState | undefined,
  after: ExtensionState | undefined,
): Set<string> {
  const touched = new Set<string>();
  const had = new Set<string>();
  for (const t of before?.tools ?? []) had.add(t.publicName);
  for (const t of after?.tools ?? []) {
    if (had.has(t.publicName)) had.delete(t.publicName);
    else touched.add(t.publicName);
  }
  for (const name of had) touched.add(name);
  return touched;
}

/** The same public names in the same order: a refetch of an unchanged list (the common case). */
function sameNames(
  a: readonly RegisteredTool[] | undefined,
  b: readonly RegisteredTool[] | undefined,
): boolean {
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.publicName !== b[i]!.publicName) return false;
  return true;
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * A copy of `state` with `changes`. Written out field by field: V8 copies an object literal
 * of known shape ~20x faster than `{ ...state, field }`, and this runs once per event.
 */
function update(state: State, changes: Partial<State>): State {
  return {
    reducerVersion: state.reducerVersion,
    ownerMetaKey: state.ownerMetaKey,
    version: changes.version ?? state.version,
    extensions: changes.extensions ?? state.extensions,
    unprefixed: changes.unprefixed ?? state.unprefixed,
    wireNames: changes.wireNames ?? state.wireNames,
    collisions: changes.collisions ?? state.collisions,
    deferral: changes.deferral ?? state.deferral,
    enabled: changes.enabled ?? state.enabled,
    pending: changes.pending ?? state.pending,
    answered: changes.answered ?? state.answered,
    anomalies: changes.anomalies ?? state.anomalies,
    anomalyCount: changes.anomalyCount ?? state.anomalyCount,
    ignored: changes.ignored ?? state.ignored,
    ignoredCount: changes.ignoredCount ?? state.ignoredCount,
    host: changes.host ?? state.host,
    conversation: changes.conversation ?? state.conversation,
    calls: changes.calls ?? state.calls,
  };
}
