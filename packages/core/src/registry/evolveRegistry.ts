import type {
  ExtensionAdded,
  ExtensionRemoved,
  HostStarted,
  OversizedDefinition,
  ToolsFetched,
  ToolsFetchFailed,
  ToolsInvalidated,
} from "../events/events.js";
import { hget, hset, hvalues } from "../fold/hashDict.js";
import { ignore } from "../fold/ignore.js";
import { sameStrings } from "../fold/sameStrings.js";
import type {
  ExtensionState,
  FetchStatus,
  RegisteredTool,
  RejectedTool,
  State,
} from "../fold/state.js";
import { update } from "../fold/update.js";
import { assignWireNames } from "../naming/nameOwners.js";
import { nameToKey } from "../naming/nameToKey.js";
import { MAX_WIRE_NAME_LENGTH } from "../naming/wireName.js";
import { fetchApplies } from "./fetchApplies.js";
import { oversizedMessage } from "./oversizedDefinition.js";
import { registerTools } from "./registerTools.js";
import { replaceExtension } from "./replaceExtension.js";

export type RegistryEvent =
  | ExtensionAdded
  | ExtensionRemoved
  | ToolsInvalidated
  | ToolsFetched
  | ToolsFetchFailed
  | HostStarted;

/** The registry stream's events (R6–R14, C1): extensions, their tool fetches, host runs. */
export function evolveRegistry(state: State, event: RegistryEvent): State {
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
    case "HostStarted":
      return hostStarted(state, event);
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
    invalidatedAt: state.version + 1,
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
  if (e.extension === undefined) return invalidateAll(bumpVersion(state));
  // Most of a long log: a key as written by the decider is found as is (R1 keys are fixed
  // points of nameToKey), so only another spelling pays for normalising.
  const ext = hget(state.extensions, e.extension) ?? hget(state.extensions, nameToKey(e.extension));
  if (!ext) return ignore(state, e.type, `no extension ${JSON.stringify(nameToKey(e.extension))}`);
  const bumped = bumpVersion(state);
  bumped.extensions = hset(state.extensions, ext.key, invalidated(ext, bumped.version));
  return bumped;
}

/** R11: the host's own invalidate makes every extension's fetch stale. */
function invalidateAll(state: State): State {
  let extensions = state.extensions;
  for (const ext of hvalues(state.extensions))
    extensions = hset(extensions, ext.key, invalidated(ext, state.version));
  state.extensions = extensions;
  return state;
}

/**
 * R11: the extension as of its latest invalidation (a fetch scoped to it started before is
 * stale). Built field by field: the spread it was took a tenth of a CPU profile of replaying
 * a log of invalidations (bench 1); this takes ~9% of that replay's CPU off.
 */
function invalidated(ext: ExtensionState, version: number): ExtensionState {
  const next: ExtensionState = {
    key: ext.key,
    name: ext.name,
    kind: ext.kind,
    exposeUnprefixed: ext.exposeUnprefixed,
    hidden: ext.hidden,
    availableTools: ext.availableTools,
    configFingerprint: ext.configFingerprint,
    fetch: ext.fetch,
    tools: ext.tools,
    rejected: ext.rejected,
    staleFetches: ext.staleFetches,
    lastStaleFetch: ext.lastStaleFetch,
    invalidatedAt: version,
  };
  if (ext.catalog !== undefined) next.catalog = ext.catalog;
  if (ext.authorization !== undefined) next.authorization = ext.authorization;
  if (ext.era !== undefined) next.era = ext.era;
  return next;
}

/** ExtensionState's optional fields; a new one fails to compile here until `invalidated` copies it. */
type OptionalExtensionField = {
  [K in keyof ExtensionState]-?: object extends Pick<ExtensionState, K> ? K : never;
}[keyof ExtensionState];
const COPIED_OPTIONAL: Record<OptionalExtensionField, true> = {
  catalog: true,
  authorization: true,
  era: true,
};
void COPIED_OPTIONAL;

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
    pinning: state.pinning,
    tasks: state.tasks,
  };
}

/** R9, R11: register a fetch that started at the current version; a stale one changes nothing. */
function toolsFetched(state: State, e: ToolsFetched): State {
  const key = nameToKey(e.extension);
  const ext = hget(state.extensions, key);
  if (!ext) return ignore(state, e.type, `no extension ${JSON.stringify(key)}`);
  if (!fetchApplies(state, ext, e.startedAtVersion, e.scope))
    return staleFetch(state, ext, e.startedAtVersion);

  // The registered tools, or those before a failed fetch emptied the extension.
  const previous = ext.tools.length > 0 ? ext.tools : (lastRegistered.get(ext.tools) ?? ext.tools);
  const registration = registerTools(ext, e.tools, previous);
  let tools = registration.tools;
  let rejected = registration.rejected;
  // R14: the common case (every name fits, nothing recorded, no renamed tool anywhere) costs nothing more.
  // A tool kept from the previous list may still get another wire name (a new budget).
  let renamed = false;
  if (!registration.allFit || e.wireNames !== undefined || state.wireNames.size > 0) {
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
  if (!registration.reordered && !renamed && tools.length === previous.length)
    tools = previous as RegisteredTool[];
  // V3: tools over the host's cap on one definition were listed, not recorded: said here.
  if (e.oversized !== undefined && e.oversized.length > 0)
    rejected = [...rejected, ...oversizedTools(ext, e.oversized)];
  if (rejected.length === 0 && ext.rejected.length === 0) rejected = ext.rejected as RejectedTool[];
  // R9: a partial fetch registers what was gathered and says why it stopped.
  const fetch: FetchStatus =
    e.complete === false
      ? { status: "partial", version: e.startedAtVersion, error: e.reason ?? "" }
      : { status: "ok", version: e.startedAtVersion, error: null };
  if (e.scope !== undefined) fetch.scope = e.scope;
  const next = withFetch(ext, fetch, tools, rejected);
  return replaceExtension(state, key, ext, next, state.version);
}

/** V3: the oversized tools a fetch reports, as rejected tools (those `availableTools` lets in). */
function oversizedTools(
  ext: ExtensionState,
  oversized: readonly OversizedDefinition[],
): RejectedTool[] {
  const allowed = ext.availableTools.length > 0 ? new Set(ext.availableTools) : null;
  return oversized
    .filter((d) => allowed === null || allowed.has(d.name))
    .map((d) => ({ rawName: d.name, reason: "oversized", message: oversizedMessage("tool", d) }));
}

/** R9: a failed fetch leaves the extension with no tools and a diagnostic. */
function toolsFetchFailed(state: State, e: ToolsFetchFailed): State {
  const key = nameToKey(e.extension);
  const ext = hget(state.extensions, key);
  if (!ext) return ignore(state, e.type, `no extension ${JSON.stringify(key)}`);
  if (!fetchApplies(state, ext, e.startedAtVersion, e.scope))
    return staleFetch(state, ext, e.startedAtVersion);
  const fetch: FetchStatus = { status: "failed", version: e.startedAtVersion, error: e.error };
  if (e.scope !== undefined) fetch.scope = e.scope;
  // This failure's own empty list: the copies of the extension share it, and it keys the
  // tools registered before (see lastRegistered).
  const emptied: RegisteredTool[] = [];
  const before = ext.tools.length > 0 ? ext.tools : lastRegistered.get(ext.tools);
  if (before) lastRegistered.set(emptied, before);
  const next = withFetch(ext, fetch, emptied, []);
  return replaceExtension(state, key, ext, next, state.version);
}

/**
 * The tools an extension registered before a failed fetch emptied it, so the fetch that
 * recovers it can keep their objects (see toolsFetched). A cache beside the state, keyed by
 * the empty tool list each failure installs: every copy of the extension after it (an
 * invalidation, a stale fetch) shares that list, so copying one costs no cache entry. A state
 * read back from JSON only loses the reuse.
 */
const lastRegistered = new WeakMap<readonly RegisteredTool[], readonly RegisteredTool[]>();

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
  return update(state, { extensions: hset(state.extensions, ext.key, next) });
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
