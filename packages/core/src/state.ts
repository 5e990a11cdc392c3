import { emptyHashDict, type HashDict } from "./_hashDict.js";
import type { Dict } from "./_records.js";
import type {
  Anomaly,
  DeferralMode,
  McpPrompt,
  McpResource,
  McpResourceTemplate,
  McpTool,
  PendingRequest,
} from "./events.js";

/** R4: default `_meta` key that names a tool's owning extension. */
export const DEFAULT_OWNER_META_KEY = "goose_extension";

/** Bumped when the shape of State changes (snapshots keyed by it are then discarded). */
export const REDUCER_VERSION = 1;

/** How many anomalies / ignored events are kept in full; older ones are only counted. */
export const DIAGNOSTIC_HISTORY_LIMIT = 100;

export interface RegisteredTool {
  /** The model-visible name (R3). */
  publicName: string;
  /** The name the owning server knows the tool by. */
  rawName: string;
  /** The owning extension's key (R5). */
  owner: string;
  /** The tool as sent, with `name` set to the public name and owner metadata (R4). */
  tool: McpTool;
}

export interface RejectedTool {
  rawName: string;
  reason: "malformed" | "duplicate";
  message: string;
}

export interface FetchStatus {
  status: "never" | "ok" | "failed";
  /** The cache version the latest applied fetch started at; null before any. */
  version: number | null;
  error: string | null;
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
  /** G1: the extension's prompts and resources; absent until one of their events arrives. */
  catalog?: ExtensionCatalog;
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
}

export interface ExtensionCatalog {
  prompts: readonly RegisteredPrompt[];
  promptsList: ListStatus;
  resources: readonly McpResource[];
  resourceTemplates: readonly McpResourceTemplate[];
  resourcesList: ListStatus;
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
  /** R10: public names produced by more than one extension → owners in key order (first wins). */
  collisions: Dict<readonly string[]>;
  deferral: { mode: DeferralMode; alwaysLoad: readonly string[] };
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
}

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
    collisions: {},
    deferral: { mode: "off", alwaysLoad: [] },
    enabled: [],
    pending: [],
    answered: emptyHashDict(),
    anomalies: [],
    anomalyCount: 0,
    ignored: [],
    ignoredCount: 0,
  };
}
