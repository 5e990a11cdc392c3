export {
  type Catalog,
  type CatalogConflict,
  type CatalogOptions,
  catalog,
  type OwnedResource,
  type OwnedResourceTemplate,
  type PromptResolution,
  resolvePrompt,
  resourceOwner,
  templatePattern,
} from "./catalog.js";
export { type CheckCallResult, checkCall } from "./checkCall.js";
export {
  type Classification,
  classifyTool,
  type EagerReason,
  isAppOnly,
  isEnabled,
  type ToolClass,
} from "./classifyTool.js";
export { closeNames } from "./closeNames.js";
export { compareBytes } from "./compareBytes.js";
export { type Command, type CommandErrorCode, type Decision, decide } from "./decide.js";
export {
  type DecodeError,
  type DecodeErrorCode,
  type DecodeResult,
  decodeEvent,
  decodeEventOrThrow,
  EventDecodeError,
} from "./decodeEvent.js";
export { type Diagnostic, diagnostics, unknownAlwaysLoad } from "./diagnostics.js";
export {
  type AppendRejection,
  type AppendResult,
  type EventStore,
  EventStoreError,
  type EventStoreErrorCode,
  type EventToAppend,
  type ExpectedVersion,
  type ReadAllOptions,
  type ReadStreamOptions,
  type StoredEvent,
} from "./eventStore.js";
export {
  type Anomaly,
  AnomalySchema,
  type Cleared,
  ClearedSchema,
  CONVERSATION_EVENT_TYPES,
  type Compacted,
  CompactedSchema,
  type DeferralConfigured,
  DeferralConfiguredSchema,
  type DeferralMode,
  DeferralModeSchema,
  type EnableError,
  EnableErrorSchema,
  type EnableToolsRequested,
  EnableToolsRequestedSchema,
  type EnableToolsResponded,
  EnableToolsRespondedSchema,
  EVENT_SCHEMA_VERSION,
  EVENT_TYPES,
  type ExtensionAdded,
  ExtensionAddedSchema,
  type ExtensionKind,
  type ExtensionRemoved,
  ExtensionRemovedSchema,
  type McpPrompt,
  McpPromptSchema,
  type McpResource,
  McpResourceSchema,
  type McpResourceTemplate,
  McpResourceTemplateSchema,
  type McpTool,
  McpToolSchema,
  type PendingRequest,
  type PromptsFetched,
  PromptsFetchedSchema,
  type PromptsInvalidated,
  PromptsInvalidatedSchema,
  type ResourcesFetched,
  ResourcesFetchedSchema,
  type ResourcesInvalidated,
  ResourcesInvalidatedSchema,
  type ToolledgerEvent,
  type ToolledgerEventInput,
  ToolledgerEventSchema,
  type ToolledgerEventType,
  type ToolsFetched,
  ToolsFetchedSchema,
  type ToolsFetchFailed,
  ToolsFetchFailedSchema,
  type ToolsInvalidated,
  ToolsInvalidatedSchema,
} from "./events.js";
export { evolve } from "./evolve.js";
export { collisionOwners, findTool, getExtension, listExtensions } from "./extensions.js";
export { InMemoryEventStore, type InMemoryEventStoreOptions } from "./inMemoryEventStore.js";
export { extensionTools, type ListToolsOptions, listTools } from "./listTools.js";
export { ENABLE_TOOLS_NAME, ENABLE_TOOLS_TOOL, type ModelView, modelView } from "./modelView.js";
export { isUnicodeWhiteSpace, nameToKey } from "./nameToKey.js";
export {
  ALWAYS_LOAD_ENV,
  DEFERRAL_ENV,
  DEFERRAL_MODES,
  type DeferralConfig,
  type DeferralConfigResult,
  parseAlwaysLoad,
  parseDeferralConfig,
  parseDeferralMode,
} from "./parseDeferralConfig.js";
export { latestCompactionIndex, replay, replayFromLatestCompaction } from "./replay.js";
export {
  type ResolvedTool,
  type ResolveFailure,
  type ResolveOptions,
  type ResolveResult,
  resolveTool,
} from "./resolveTool.js";
export { staleExtensions } from "./staleExtensions.js";
export {
  DEFAULT_OWNER_META_KEY,
  DIAGNOSTIC_HISTORY_LIMIT,
  type ExtensionCatalog,
  type ExtensionState,
  type FetchStatus,
  type IgnoredEvent,
  initialState,
  type ListStatus,
  REDUCER_VERSION,
  type RegisteredPrompt,
  type RegisteredTool,
  type RejectedTool,
  type State,
  type StateOptions,
} from "./state.js";
