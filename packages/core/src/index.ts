export {
  auditCalls,
  CALL_AUDIT_CSV_COLUMNS,
  type CallAuditFilter,
  type CallAuditRecord,
  type CallTaskAudit,
  formatCallAuditCsv,
  type TaskLifecycleStep,
} from "./audit/auditCalls.js";
export {
  type AuditPoint,
  auditEnables,
  auditEnablesAsync,
  type EnableAudit,
  type EnableAuditFilter,
  type EnableAuditRecord,
  type EnableOutcome,
  type EndedBy,
  type OrphanResponse,
} from "./audit/auditEnables.js";
export { ENABLE_AUDIT_CSV_COLUMNS, formatEnableAuditCsv } from "./audit/formatEnableAuditCsv.js";
export {
  OAUTH_COMMAND_SCHEMAS,
  OAUTH_EVENT_SCHEMAS,
  type OAuthAuthorizationFailed,
  OAuthAuthorizationFailedSchema,
  type OAuthAuthorizationRequired,
  OAuthAuthorizationRequiredSchema,
  type OAuthAuthorized,
  OAuthAuthorizedSchema,
  type OAuthCommand,
  type OAuthEvent,
  type OAuthTokenRefreshed,
  OAuthTokenRefreshedSchema,
  RecordAuthorizationCommandSchema,
  RecordAuthorizationFailureCommandSchema,
  RecordTokenRefreshCommandSchema,
  RequireAuthorizationCommandSchema,
} from "./authorization/authorizationEvents.js";
export type { ExtensionAuthorization } from "./authorization/authorizationState.js";
export {
  type BuiltinCall,
  type CallRefusal,
  type CheckCallResult,
  checkCall,
} from "./calls/checkCall.js";
export {
  type TaskCreated,
  TaskCreatedSchema,
  type TaskEvent,
  type TaskRunner,
  TaskRunnerSchema,
  type TaskStatus,
  type TaskStatusChanged,
  TaskStatusChangedSchema,
  TaskStatusSchema,
  TERMINAL_TASK_STATUSES,
} from "./calls/taskEvents.js";
export {
  findTask,
  NO_TASKS,
  OPEN_TASK_LIMIT,
  TASK_HISTORY_LIMIT,
  type TaskRecord,
  type TaskSummary,
} from "./calls/taskSummary.js";
export { toolCallStats } from "./calls/toolCallStats.js";
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
} from "./catalog/catalog.js";
export {
  type SessionImported,
  SessionImportedSchema,
  type UsageRecorded,
  UsageRecordedSchema,
} from "./conversation/importedEvents.js";
export {
  AddExtensionCommandSchema,
  ApproveEnableToolsCommandSchema,
  ClearCommandSchema,
  COMMAND_TYPES,
  type Command,
  CommandSchema,
  type CommandType,
  CompactCommandSchema,
  ConfigureDeferralCommandSchema,
  type ConversationOpening,
  DenyEnableToolsCommandSchema,
  EnableToolsCommandSchema,
  FinishCallCommandSchema,
  InvalidateToolsCommandSchema,
  RecordFetchCommandSchema,
  RecordFetchFailureCommandSchema,
  RemoveExtensionCommandSchema,
  RequestEnableToolsCommandSchema,
  ResumeConversationCommandSchema,
  StartCallCommandSchema,
  StartConversationCommandSchema,
  StartHostCommandSchema,
} from "./decide/command.js";
export {
  type CommandError,
  type CommandErrorCode,
  type Decision,
  decide,
} from "./decide/decide.js";
export {
  type Classification,
  classifyTool,
  type EagerReason,
  isAppOnly,
  isEnabled,
  type ToolClass,
} from "./deferral/classifyTool.js";
export { currentStrategy } from "./deferral/currentStrategy.js";
export {
  DEFAULT_DEFERRAL_BUDGET,
  type DeferralStrategy,
  estimateNamesTokens,
  strategyFor,
} from "./deferral/deferralStrategy.js";
export {
  ALWAYS_LOAD_META,
  ENABLE_TOOLS_NAME,
  ENABLE_TOOLS_TOOL,
  ENABLE_TOOLS_TOOL_SEARCH,
  type ModelView,
  modelView,
} from "./deferral/modelView.js";
export {
  ALWAYS_LOAD_ENV,
  DEFERRAL_ENV,
  DEFERRAL_MODES,
  type DeferralConfig,
  type DeferralConfigResult,
  parseAlwaysLoad,
  parseDeferralConfig,
  parseDeferralMode,
  parseToolledgerDeferralMode,
  TOOLLEDGER_DEFERRAL_MODES,
} from "./deferral/parseDeferralConfig.js";
export { createLogLineParser } from "./events/createLogLineParser.js";
export {
  type DecodeError,
  type DecodeErrorCode,
  type DecodeResult,
  decodeEvent,
  decodeEventOrThrow,
  EventDecodeError,
} from "./events/decodeEvent.js";
export { EVENT_CATALOG, EVENT_CATALOG_VERSION } from "./events/eventCatalog.js";
export {
  type Anomaly,
  AnomalySchema,
  type CallOutcome,
  CallOutcomeSchema,
  type Cleared,
  ClearedSchema,
  CONVERSATION_EVENT_TYPES,
  type Compacted,
  CompactedSchema,
  type ConversationClient,
  ConversationClientSchema,
  type ConversationClosed,
  ConversationClosedSchema,
  type ConversationResumed,
  ConversationResumedSchema,
  type ConversationStarted,
  ConversationStartedSchema,
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
  type FetchScope,
  FetchScopeSchema,
  type HostStarted,
  HostStartedSchema,
  type McpPrompt,
  McpPromptSchema,
  type McpResource,
  McpResourceSchema,
  type McpResourceTemplate,
  McpResourceTemplateSchema,
  type McpTool,
  McpToolSchema,
  type OversizedDefinition,
  OversizedDefinitionSchema,
  type PendingRequest,
  type PromptsFetched,
  PromptsFetchedSchema,
  type PromptsInvalidated,
  PromptsInvalidatedSchema,
  REGISTRY_EVENT_TYPES,
  type ResourcesFetched,
  ResourcesFetchedSchema,
  type ResourcesInvalidated,
  ResourcesInvalidatedSchema,
  type ToolCallFinished,
  ToolCallFinishedSchema,
  type ToolCallStarted,
  ToolCallStartedSchema,
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
} from "./events/events.js";
export {
  type EventOrigin,
  type EventOriginKind,
  EventOriginKindSchema,
  EventOriginSchema,
} from "./events/origin.js";
export { evolve } from "./fold/evolve.js";
export {
  type ConversationLog,
  type FoldStep,
  foldConversation,
  loadConversationState,
  readConversationLog,
  readWholeStream,
  registryStreamOf,
} from "./fold/foldConversation.js";
export {
  type FoldedEvent,
  foldOrderedConversation,
} from "./fold/foldOrderedConversation.js";
export { type OrderedEvent, orderConversation } from "./fold/orderConversation.js";
export { latestCompactionIndex, replay, replayFromLatestCompaction } from "./fold/replay.js";
export { type LoadedState, SnapshotFold, type SnapshotRow } from "./fold/snapshotFold.js";
export {
  CALL_HISTORY_LIMIT,
  type CallRecord,
  type CallSummary,
  type ConversationInfo,
  DEFAULT_OWNER_META_KEY,
  DIAGNOSTIC_HISTORY_LIMIT,
  type ExtensionCatalog,
  type ExtensionState,
  type FetchStatus,
  type HostInfo,
  type IgnoredEvent,
  IN_FLIGHT_LIMIT,
  type InFlightCall,
  initialState,
  type ListStatus,
  REDUCER_VERSION,
  type RegisteredPrompt,
  type RegisteredTool,
  type RejectedTool,
  type State,
  type StateOptions,
  type ToolCallStats,
  withRegistry,
} from "./fold/state.js";
export { closeNames } from "./naming/closeNames.js";
export { collisionOwners } from "./naming/collisionOwners.js";
export { compareBytes } from "./naming/compareBytes.js";
export { findTool } from "./naming/findTool.js";
export { isUnicodeWhiteSpace, nameToKey } from "./naming/nameToKey.js";
export {
  type ResolvedTool,
  type ResolveFailure,
  type ResolveOptions,
  type ResolveResult,
  resolveTool,
} from "./naming/resolveTool.js";
export {
  fitsWire,
  MAX_WIRE_NAME_LENGTH,
  MIN_WIRE_NAME_LENGTH,
  WIRE_NAME_PATTERN,
} from "./naming/wireName.js";
export * from "./pinning/index.js";
export {
  type Diagnostic,
  type DiagnosticsOptions,
  diagnostics,
  unknownAlwaysLoad,
} from "./registry/diagnostics.js";
export { downExtension } from "./registry/downExtension.js";
export {
  type EraSource,
  EraSourceSchema,
  type ExtensionEra,
  type ExtensionEraDetected,
  ExtensionEraDetectedSchema,
  type ProtocolEra,
  ProtocolEraSchema,
  type RecordEraCommand,
  RecordEraCommandSchema,
} from "./registry/eraEvents.js";
export { getExtension, listExtensions } from "./registry/extensions.js";
export { fetchApplies, isStale } from "./registry/fetchApplies.js";
export { extensionTools, type ListToolsOptions, listTools } from "./registry/listTools.js";
export {
  isMcpToolDefinition,
  type McpToolDefinition,
  McpToolDefinitionSchema,
  mcpToolProblem,
} from "./registry/mcpToolDefinition.js";
export {
  type DefinitionKind,
  formatBytes,
  oversizedKind,
  oversizedMessage,
} from "./registry/oversizedDefinition.js";
export { servedTool } from "./registry/servedTool.js";
export { staleExtensions } from "./registry/staleExtensions.js";
export { explainSearchResult, type SearchResultWhy } from "./search/explainSearchResult.js";
export {
  type RegistryIndex as SearchIndex,
  registryIndex as searchIndex,
} from "./search/registryIndex.js";
export {
  type ReproducedSearch,
  reproduceSearch,
  type SearchAnswer,
  type SearchAnswerTool,
  searchAnswer,
} from "./search/searchAnswer.js";
export { type ToolsSearched, ToolsSearchedSchema } from "./search/searchEvents.js";
export { SEARCH_TOOLS_NAME, SEARCH_TOOLS_TOOL, searchPrompt } from "./search/searchPrompt.js";
export {
  DEFAULT_SEARCH_LIMIT,
  isSearchable,
  MAX_QUERY_LENGTH,
  MAX_SEARCH_LIMIT,
  REGEX_STEP_BUDGET,
  type SearchErrorCode,
  type SearchHit,
  type SearchOptions,
  type SearchToolsResult,
  searchTools,
} from "./search/searchTools.js";
export {
  decodeRowEvent,
  type EventDataRow,
  type EventRow,
  eventFromRow,
  eventsFromRows,
  type RowSource,
} from "./store/eventFromRow.js";
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
} from "./store/eventStore.js";
export { InMemoryEventStore, type InMemoryEventStoreOptions } from "./store/inMemoryEventStore.js";
export {
  LEASE_RENEW_MS,
  LEASE_TTL_MS,
  type Lease,
  type LeaseReading,
  type LeaseRenewal,
  type OpenConversation,
} from "./store/leases.js";
export {
  invalidEvent,
  isStorableId,
  matchesExpectedVersion,
  type SerializedBatch,
  serializeBatch,
} from "./store/serializeBatch.js";
export type { SessionStore, SessionSummary } from "./store/sessionStore.js";
export { type SessionRow, SqlEventStore } from "./store/sqlEventStore.js";
export {
  type AbortSignalLike,
  type AppendWaker,
  type SubscribeOptions,
  sleep,
  subscribe,
} from "./store/subscribe.js";
