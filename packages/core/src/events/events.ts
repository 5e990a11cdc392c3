import { z } from "zod";
import { OAUTH_EVENT_SCHEMAS } from "../authorization/authorizationEvents.js";
import { ToolCallFinishedSchema, ToolCallStartedSchema } from "../calls/callEvents.js";
import { TASK_EVENT_SCHEMAS } from "../calls/taskEvents.js";
import {
  OversizedDefinitionSchema,
  PromptsFetchedSchema,
  PromptsInvalidatedSchema,
  ResourcesFetchedSchema,
  ResourcesInvalidatedSchema,
} from "../catalog/catalogEvents.js";
import {
  ConversationClosedSchema,
  ConversationResumedSchema,
  ConversationStartedSchema,
} from "../conversation/conversationEvents.js";
import { SessionImportedSchema, UsageRecordedSchema } from "../conversation/importedEvents.js";
import {
  DefinitionsApprovedSchema,
  DefinitionsChangedSchema,
  DefinitionsPinnedSchema,
  DefinitionsRejectedSchema,
  DefinitionsRestoredSchema,
  PinPolicySetSchema,
  PinsCarriedSchema,
} from "../pinning/pinEvents.js";
import { ExtensionEraDetectedSchema } from "../registry/eraEvents.js";
import { ToolsSearchedSchema } from "../search/searchEvents.js";
import { EVENT_SCHEMA_VERSION } from "./eventSchemaVersion.js";
import { origin } from "./origin.js";

export * from "../calls/callEvents.js";
export * from "../catalog/catalogEvents.js";
export * from "../conversation/conversationEvents.js";
export { EVENT_SCHEMA_VERSION };

const v = z.literal(EVENT_SCHEMA_VERSION);
/** Optional ISO-8601 time supplied by whoever appends the event (E2: never made by the reducer). */
const at = z.string().optional();

/**
 * A tool as an MCP server sent it. Only `name` is required here, so a malformed tool
 * (no `inputSchema`) can be recorded and reported instead of failing the whole fetch.
 * Everything else is kept as sent (R9).
 */
export const McpToolSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.unknown().optional(),
  outputSchema: z.unknown().optional(),
  annotations: z.unknown().optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});
export type McpTool = z.infer<typeof McpToolSchema>;

/** R6: a host-defined kind is any other non-empty string. */
export const ExtensionKindSchema = z.string().min(1);
export type ExtensionKind = "stdio" | "streamable_http" | "builtin" | "platform" | (string & {});

export const ExtensionAddedSchema = z.object({
  type: z.literal("ExtensionAdded"),
  v,
  at,
  /** Display name as given (R2); the key is derived with nameToKey (R1). */
  name: z.string(),
  kind: ExtensionKindSchema,
  exposeUnprefixed: z.boolean().default(false),
  hidden: z.boolean().default(false),
  /** Allow-list of raw tool names; empty means all (R9). */
  availableTools: z.array(z.string()).default([]),
  /** Fingerprint of the connection config: secrets enter it only hashed (R6). */
  configFingerprint: z.string(),
  origin,
});
export type ExtensionAdded = z.infer<typeof ExtensionAddedSchema>;

export const ExtensionRemovedSchema = z.object({
  type: z.literal("ExtensionRemoved"),
  v,
  at,
  /** Extension name or key; normalised with nameToKey. */
  extension: z.string(),
  origin,
});
export type ExtensionRemoved = z.infer<typeof ExtensionRemovedSchema>;

export const ToolsInvalidatedSchema = z.object({
  type: z.literal("ToolsInvalidated"),
  v,
  at,
  /** The extension that said tools/list_changed; absent: the host's own invalidate (R11). */
  extension: z.string().optional(),
  origin,
});
export type ToolsInvalidated = z.infer<typeof ToolsInvalidatedSchema>;

/**
 * R11, which invalidations make a tools fetch stale. `"extension"`: only its own extension's
 * (its ExtensionAdded, its ToolsInvalidated, the host's own invalidate); absent (every fetch
 * recorded before issue 20): any version bump, as in goose.
 */
export const FetchScopeSchema = z.literal("extension");
export type FetchScope = z.infer<typeof FetchScopeSchema>;

export const ToolsFetchedSchema = z.object({
  type: z.literal("ToolsFetched"),
  v,
  at,
  extension: z.string(),
  /** The registry's cache version when the fetch started (R11). */
  startedAtVersion: z.number().int().nonnegative(),
  /** Every page of tools/list, in the server's order (only the pages gathered, when partial). */
  tools: z.array(McpToolSchema),
  /** R9: false when a later page failed or hit the pagination guard; absent means complete. */
  complete: z.boolean().optional(),
  /** R9: why the fetch is partial. */
  reason: z.string().optional(),
  /**
   * R14: the wire names decided for tools whose public name does not fit (or not within the
   * host's budget), by raw name. Recorded so replay serves the same names; absent: none.
   */
  wireNames: z.array(z.object({ rawName: z.string(), wireName: z.string() })).optional(),
  /** R11: `"extension"`: stale only when its own extension was invalidated after it started. */
  scope: FetchScopeSchema.optional(),
  /** V3: tools listed but over the host's cap on one definition, not in `tools` (absent: none). */
  oversized: z.array(OversizedDefinitionSchema).optional(),
  origin,
});
export type ToolsFetched = z.infer<typeof ToolsFetchedSchema>;

export const ToolsFetchFailedSchema = z.object({
  type: z.literal("ToolsFetchFailed"),
  v,
  at,
  extension: z.string(),
  startedAtVersion: z.number().int().nonnegative(),
  /** A short, secret-free description of what went wrong. */
  error: z.string(),
  /** R11: as ToolsFetched's. */
  scope: FetchScopeSchema.optional(),
  origin,
});
export type ToolsFetchFailed = z.infer<typeof ToolsFetchFailedSchema>;

/**
 * D1/S1: `off`, goose's `lookup`, toolledger's own `search` (S1), or `auto`: lookup while the
 * deferred names fit a token budget, search above it. `GOOSE_TOOL_DEFERRAL` accepts only
 * off and lookup (D1).
 */
export const DeferralModeSchema = z.enum(["off", "lookup", "search", "auto"]);
export type DeferralMode = z.infer<typeof DeferralModeSchema>;

export const DeferralConfiguredSchema = z.object({
  type: z.literal("DeferralConfigured"),
  v,
  at,
  mode: DeferralModeSchema,
  alwaysLoad: z.array(z.string()).default([]),
  /** S1 `auto`: the token budget of the deferred-names section; absent: the default. */
  budget: z.number().int().positive().optional(),
  origin,
});
export type DeferralConfigured = z.infer<typeof DeferralConfiguredSchema>;

export const EnableToolsRequestedSchema = z.object({
  type: z.literal("EnableToolsRequested"),
  v,
  at,
  callId: z.string(),
  names: z.array(z.string()),
  origin,
});
export type EnableToolsRequested = z.infer<typeof EnableToolsRequestedSchema>;

export const EnableErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
  /** The offending entries, each with its reason and close names. */
  invalid: z
    .array(
      z.object({
        name: z.string(),
        reason: z.string(),
        suggestions: z.array(z.string()).default([]),
      }),
    )
    .default([]),
});
export type EnableError = z.infer<typeof EnableErrorSchema>;

export const EnableToolsRespondedSchema = z.object({
  type: z.literal("EnableToolsResponded"),
  v,
  at,
  callId: z.string(),
  ok: z.boolean(),
  error: EnableErrorSchema.optional(),
  origin,
});
export type EnableToolsResponded = z.infer<typeof EnableToolsRespondedSchema>;

export const PendingRequestSchema = z.object({ callId: z.string(), names: z.array(z.string()) });
export type PendingRequest = z.infer<typeof PendingRequestSchema>;

export const AnomalySchema = z.object({
  kind: z.enum(["response_without_request", "failed_response", "duplicate_response"]),
  callId: z.string(),
});
export type Anomaly = z.infer<typeof AnomalySchema>;

export const CompactedSchema = z.object({
  type: z.literal("Compacted"),
  v,
  at,
  /** D7: the conversation-derived state, so replay can start here. */
  enabled: z.array(z.string()),
  pending: z.array(PendingRequestSchema),
  /** Call ids already answered since the last clear (to tell duplicates from orphans). */
  answered: z.array(z.string()).default([]),
  anomalies: z.array(AnomalySchema).default([]),
  anomalyCount: z.number().int().nonnegative().default(0),
  origin,
});
export type Compacted = z.infer<typeof CompactedSchema>;

export const ClearedSchema = z.object({ type: z.literal("Cleared"), v, at, origin });
export type Cleared = z.infer<typeof ClearedSchema>;

/** C1/C3: a host run started writing its registry stream (a run, or a resume, of the host). */
export const HostStartedSchema = z.object({
  type: z.literal("HostStarted"),
  v,
  at,
  /** The machine's host name, so a shared store can tell hosts apart. */
  hostname: z.string(),
  pid: z.number().int().nonnegative().optional(),
  /** The toolledger release that wrote the run. */
  toolledgerVersion: z.string().optional(),
  origin,
});
export type HostStarted = z.infer<typeof HostStartedSchema>;

export const ToolledgerEventSchema = z.discriminatedUnion("type", [
  ExtensionAddedSchema,
  ExtensionRemovedSchema,
  ToolsInvalidatedSchema,
  ToolsFetchedSchema,
  ToolsFetchFailedSchema,
  DeferralConfiguredSchema,
  EnableToolsRequestedSchema,
  EnableToolsRespondedSchema,
  CompactedSchema,
  ClearedSchema,
  PromptsInvalidatedSchema,
  PromptsFetchedSchema,
  ResourcesInvalidatedSchema,
  ResourcesFetchedSchema,
  HostStartedSchema,
  ExtensionEraDetectedSchema,
  ConversationStartedSchema,
  ConversationResumedSchema,
  ConversationClosedSchema,
  ToolCallStartedSchema,
  ToolCallFinishedSchema,
  SessionImportedSchema,
  UsageRecordedSchema,
  ToolsSearchedSchema,
  PinPolicySetSchema,
  PinsCarriedSchema,
  DefinitionsPinnedSchema,
  DefinitionsChangedSchema,
  DefinitionsRestoredSchema,
  DefinitionsApprovedSchema,
  DefinitionsRejectedSchema,
  ...TASK_EVENT_SCHEMAS,
  ...OAUTH_EVENT_SCHEMAS,
]);
export type ToolledgerEvent = z.infer<typeof ToolledgerEventSchema>;
export type ToolledgerEventType = ToolledgerEvent["type"];

export const EVENT_TYPES: readonly ToolledgerEventType[] = ToolledgerEventSchema.options.map(
  (o) => o.shape.type.value,
);

/**
 * D7: the enable-related conversation events whose effect a `Compacted` event carries, so a
 * fold may skip them before the latest `Compacted`.
 */
export const CONVERSATION_EVENT_TYPES: ReadonlySet<ToolledgerEventType> = new Set([
  "EnableToolsRequested",
  "EnableToolsResponded",
  "Compacted",
  "Cleared",
]);

/** Input type of an event before defaults are applied (what appenders may write). */
export type ToolledgerEventInput = z.input<typeof ToolledgerEventSchema>;

/**
 * C1: events of a host's registry stream. Every other type belongs to a conversation stream;
 * a stream written before conversations existed (a legacy session) holds both kinds.
 */
export const REGISTRY_EVENT_TYPES: ReadonlySet<ToolledgerEventType> = new Set([
  "HostStarted",
  "ExtensionAdded",
  "ExtensionRemoved",
  "ToolsInvalidated",
  "ToolsFetched",
  "ToolsFetchFailed",
  "PromptsInvalidated",
  "PromptsFetched",
  "ResourcesInvalidated",
  "ResourcesFetched",
  // P4: a host's registry stream carries and mirrors the pins ledger's events.
  "PinPolicySet",
  "PinsCarried",
  "DefinitionsPinned",
  "DefinitionsChanged",
  "DefinitionsRestored",
  "DefinitionsApproved",
  "DefinitionsRejected",
  "OAuthAuthorizationRequired",
  "OAuthAuthorized",
  "OAuthTokenRefreshed",
  "OAuthAuthorizationFailed",
  "ExtensionEraDetected",
]);
