import type { ExtensionAuthorization } from "../authorization/authorizationState.js";
import { NO_TASKS, type TaskSummary } from "../calls/taskSummary.js";
import type {
  Anomaly,
  CallOutcome,
  ConversationClient,
  DeferralMode,
  FetchScope,
  McpPrompt,
  McpResource,
  McpResourceTemplate,
  McpTool,
  OversizedDefinition,
  PendingRequest,
} from "../events/events.js";
import type { ExtensionPins } from "../pinning/pinState.js";
import type { ExtensionEra } from "../registry/eraEvents.js";
import { emptyHashDict, type HashDict } from "./hashDict.js";
import type { Dict } from "./records.js";

/** R4: default `_meta` key that names a tool's owning extension. */
export const DEFAULT_OWNER_META_KEY = "goose_extension";

/** Bumped when the shape of State changes (snapshots keyed by it are then discarded). */
export const REDUCER_VERSION = 7;

/** How many anomalies / ignored events are kept in full; older ones are only counted. */
export const DIAGNOSTIC_HISTORY_LIMIT = 100;

/** C4: how many finished calls the state keeps in full. */
export const CALL_HISTORY_LIMIT = 20;
/** C4: how many unfinished calls the state tracks (a crashed host leaves some open forever). */
export const IN_FLIGHT_LIMIT = 100;

/**
 * A registered tool: a view of the tool as its server sent it, with the names it goes by.
 * The definition served to clients and models (wire name, owner metadata) is `servedTool`.
 */
export interface RegisteredTool {
  /** The registry's name for the tool (R3): `<key>__<rawName>`, or the raw name when unprefixed. */
  publicName: string;
  /** R14: the name served to models: the public name when it fits `^[a-zA-Z0-9_-]{1,64}$`. */
  wireName: string;
  /** The name the owning server knows the tool by. */
  rawName: string;
  /** The owning extension's key (R5). */
  owner: string;
  /** The tool exactly as the server listed it (R9). */
  raw: McpTool;
}

export interface RejectedTool {
  rawName: string;
  /** R9 (malformed, duplicate), V3 (oversized: over the host's cap on one definition). */
  reason: "malformed" | "duplicate" | "oversized";
  message: string;
}

export interface FetchStatus {
  /** `partial`: a later page failed, the tools gathered before it are registered (R9). */
  status: "never" | "ok" | "partial" | "failed";
  /** The cache version the latest applied fetch started at; null before any. */
  version: number | null;
  /** Why the fetch failed or is partial; null otherwise. */
  error: string | null;
  /** R11: the applied fetch goes stale only with its own extension (absent: with any bump). */
  scope?: FetchScope;
}

export interface ExtensionState {
  key: string;
  /** Display name as given (R2). */
  name: string;
  kind: string;
  exposeUnprefixed: boolean;
  /** Effective R8 hiddenness: explicitly hidden, or the key starts with `_`. */
  hidden: boolean;
  availableTools: readonly string[];
  configFingerprint: string;
  fetch: FetchStatus;
  /**
   * Registered tools in the server's order (the first of a name the server repeated wins).
   * Read one with `findTool`; `listTools` sorts them.
   */
  tools: readonly RegisteredTool[];
  rejected: readonly RejectedTool[];
  staleFetches: number;
  lastStaleFetch: { startedAtVersion: number; version: number } | null;
  /**
   * R11: the registry version right after this extension's tools were last invalidated (its
   * ExtensionAdded, its ToolsInvalidated, or the host's own invalidate).
   */
  invalidatedAt: number;
  /** G1: the extension's prompts and resources; absent until one of their events arrives. */
  catalog?: ExtensionCatalog;
  /** A1–A4: its OAuth authorization; absent until one of its events arrives. */
  authorization?: ExtensionAuthorization;
  /** V1: the protocol era its server speaks; absent until its first verdict. */
  era?: ExtensionEra;
}

/** A prompt as registered: named like a tool (R3), owner metadata like a tool's (R4). */
export interface RegisteredPrompt {
  publicName: string;
  rawName: string;
  owner: string;
  prompt: McpPrompt;
}

/** One of an extension's lists (prompts, resources) and its own version counter. */
export interface ListStatus {
  /** Bumped by every invalidation (the extension's `list_changed`). */
  version: number;
  /** The version the applied fetch started at; null before any. */
  fetchedVersion: number | null;
  status: "never" | "ok" | "failed";
  error: string | null;
  staleFetches: number;
  /** V3: what the applied fetch listed over the host's cap on one definition (absent: nothing). */
  oversized?: readonly OversizedDefinition[];
}

export interface ExtensionCatalog {
  prompts: readonly RegisteredPrompt[];
  promptsList: ListStatus;
  resources: readonly McpResource[];
  resourceTemplates: readonly McpResourceTemplate[];
  resourcesList: ListStatus;
}

/** C1: the host run whose registry stream this state folded (HostStarted). */
export interface HostInfo {
  hostname: string;
  pid: number | null;
  toolledgerVersion: string | null;
  /** When the latest run started (the event's `at`). */
  startedAt: string | null;
  /** How many runs the registry stream holds (a second one is a resume). */
  runs: number;
}

/** C3/C5: who the conversation talks to and whether it is open. */
export interface ConversationInfo {
  registryStream: string;
  client: ConversationClient | null;
  protocolVersion: string | null;
  transport: string | null;
  hostname: string | null;
  startedAt: string | null;
  status: "open" | "closed";
  closedAt: string | null;
  closedReason: string | null;
  /** L3: when a conversation closed as `lost` had its gateway last seen alive. */
  lastSeen: string | null;
  /** How many times the conversation was reopened (ConversationResumed). */
  resumes: number;
}

/** C4: one finished call, as kept in the bounded `recent` list. */
export interface CallRecord {
  callId: string;
  /** The name as called. */
  name: string;
  publicName: string | null;
  owner: string | null;
  outcome: CallOutcome;
  reason: string | null;
  durationMs: number;
  at: string | null;
}

/** C4: a call that started and has not finished. */
export interface InFlightCall {
  callId: string;
  name: string;
  publicName: string | null;
  owner: string | null;
  at: string | null;
}

/** C4: per-tool counters (keyed by public name; unresolved names are only counted in the totals). */
export interface ToolCallStats {
  total: number;
  outcomes: Readonly<Record<CallOutcome, number>>;
  lastOutcome: CallOutcome;
}

/** C4: a bounded summary of the conversation's calls; the log holds the full history. */
export interface CallSummary {
  started: number;
  finished: number;
  outcomes: Readonly<Record<CallOutcome, number>>;
  byTool: HashDict<ToolCallStats>;
  /** The latest finished calls, oldest first (at most CALL_HISTORY_LIMIT). */
  recent: readonly CallRecord[];
  /** Calls started and not finished yet (at most IN_FLIGHT_LIMIT; older ones are dropped). */
  inFlight: readonly InFlightCall[];
}

export interface IgnoredEvent {
  type: string;
  reason: string;
}

export interface State {
  reducerVersion: number;
  ownerMetaKey: string;
  /** R11: the cache version. */
  version: number;
  /** Extensions by key; read with `getExtension` / `listExtensions`. */
  extensions: HashDict<ExtensionState>;
  /** Keys of extensions that expose unprefixed names, sorted. */
  unprefixed: readonly string[];
  /** R14: wire name → public name, for the tools whose wire name differs from their public name. */
  wireNames: HashDict<string>;
  /** R10: public names produced by more than one extension → owners, visible before hidden, then by key (first wins). */
  collisions: Dict<readonly string[]>;
  /** D1/S1: the mode, the always-load list and, when one was configured, auto's token budget. */
  deferral: { mode: DeferralMode; alwaysLoad: readonly string[]; budget?: number };
  /** D6: enabled public names, byte-wise sorted. */
  enabled: readonly string[];
  /** Requests awaiting a response, in request order. */
  pending: readonly PendingRequest[];
  /** Call ids answered since the last clear. */
  answered: HashDict<true>;
  anomalies: readonly Anomaly[];
  anomalyCount: number;
  /** Well-formed events that referred to something absent (unknown extension, empty key). */
  ignored: readonly IgnoredEvent[];
  ignoredCount: number;
  /** C1: the latest host run of the registry stream; null before any HostStarted. */
  host: HostInfo | null;
  /** C3/C5: the conversation; null for a registry stream or a legacy session. */
  conversation: ConversationInfo | null;
  /** C4: the bounded call summary. */
  calls: CallSummary;
  /** P1–P6: pinned definitions per extension key (the pins ledger, carried into a registry). */
  pinning: Dict<ExtensionPins>;
  /** C6: the bounded task summary. */
  tasks: TaskSummary;
}

export const NO_CALL_OUTCOMES: Readonly<Record<CallOutcome, number>> = Object.freeze({
  ok: 0,
  tool_error: 0,
  refused: 0,
  timeout: 0,
  cancelled: 0,
  unavailable: 0,
  unknown: 0,
});

const NO_CALLS: CallSummary = Object.freeze({
  started: 0,
  finished: 0,
  outcomes: NO_CALL_OUTCOMES,
  byTool: emptyHashDict<ToolCallStats>(),
  recent: [],
  inFlight: [],
});

export interface StateOptions {
  /** R4: the `_meta` key that carries the owner. Default `goose_extension`. */
  ownerMetaKey?: string;
}

export function initialState(options: StateOptions = {}): State {
  return {
    reducerVersion: REDUCER_VERSION,
    ownerMetaKey: options.ownerMetaKey ?? DEFAULT_OWNER_META_KEY,
    version: 0,
    extensions: emptyHashDict(),
    unprefixed: [],
    wireNames: emptyHashDict(),
    collisions: {},
    deferral: { mode: "off", alwaysLoad: [] },
    enabled: [],
    pending: [],
    answered: emptyHashDict(),
    anomalies: [],
    anomalyCount: 0,
    ignored: [],
    ignoredCount: 0,
    host: null,
    conversation: null,
    calls: NO_CALLS,
    pinning: {},
    tasks: NO_TASKS,
  };
}

/**
 * C1: the state a conversation's model sees: the registry part of `registry` (a host's
 * registry stream folded) with the conversation part of `conversation` (its own stream
 * folded). Registry events change only registry fields and conversation events only
 * conversation fields, so this equals folding both streams merged in global order.
 */
export function withRegistry(conversation: State, registry: State): State {
  return {
    ...registry,
    deferral: conversation.deferral,
    enabled: conversation.enabled,
    pending: conversation.pending,
    answered: conversation.answered,
    anomalies: conversation.anomalies,
    anomalyCount: conversation.anomalyCount,
    conversation: conversation.conversation,
    calls: conversation.calls,
    tasks: conversation.tasks,
  };
}
