export {
  auditCalls,
  CALL_AUDIT_CSV_COLUMNS,
  type CallAuditFilter,
  type CallAuditRecord,
  type CallTaskAudit,
  formatCallAuditCsv,
  type TaskLifecycleStep,
} from "./auditCalls.js";
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
} from "./auditEnables.js";
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
export {
  type BuiltinCall,
  type CallRefusal,
  type CheckCallResult,
  checkCall,
} from "./checkCall.js";
export {
  type Classification,
  classifyTool,
  type EagerReason,
  isAppOnly,
  isEnabled,
  type ToolClass,
} from "./classifyTool.js";
export { closeNames } from "./closeNames.js";
export { collisionOwners } from "./collisionOwners.js";
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
} from "./command.js";
export { compareBytes } from "./compareBytes.js";
export { createLogLineParser } from "./createLogLineParser.js";
export { type CommandError, type CommandErrorCode, type Decision, decide } from "./decide.js";
export {
  type DecodeError,
  type DecodeErrorCode,
  type DecodeResult,
  decodeEvent,
  decodeEventOrThrow,
  EventDecodeError,
} from "./decodeEvent.js";
export { currentStrategy } from "./deferral/currentStrategy.js";
export {
  DEFAULT_DEFERRAL_BUDGET,
  type DeferralStrategy,
  estimateNamesTokens,
  strategyFor,
} from "./deferral/deferralStrategy.js";
export {
  type Diagnostic,
  type DiagnosticsOptions,
  diagnostics,
  unknownAlwaysLoad,
} from "./diagnostics.js";
export { downExtension } from "./downExtension.js";
export { EVENT_CATALOG, EVENT_CATALOG_VERSION } from "./eventCatalog.js";
export {
  decodeRowEvent,
  type EventDataRow,
  type EventRow,
  eventFromRow,
  eventsFromRows,
  type RowSource,
} from "./eventFromRow.js";
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
} from "./events.js";
export { evolve } from "./evolve.js";
export { getExtension, listExtensions } from "./extensions.js";
export { findTool } from "./findTool.js";
export {
  type ConversationLog,
  type FoldStep,
  foldConversation,
  loadConversationState,
  readConversationLog,
  readWholeStream,
  registryStreamOf,
} from "./foldConversation.js";
export {
  type FoldedEvent,
  foldOrderedConversation,
} from "./foldOrderedConversation.js";
export { ENABLE_AUDIT_CSV_COLUMNS, formatEnableAuditCsv } from "./formatEnableAuditCsv.js";
export {
  type SessionImported,
  SessionImportedSchema,
  type UsageRecorded,
  UsageRecordedSchema,
} from "./imported/importedEvents.js";
export { InMemoryEventStore, type InMemoryEventStoreOptions } from "./inMemoryEventStore.js";
export {
  LEASE_RENEW_MS,
  LEASE_TTL_MS,
  type Lease,
  type LeaseReading,
  type LeaseRenewal,
  type OpenConversation,
} from "./leases.js";
export { extensionTools, type ListToolsOptions, listTools } from "./listTools.js";
export {
  isMcpToolDefinition,
  type McpToolDefinition,
  McpToolDefinitionSchema,
  mcpToolProblem,
} from "./mcpToolDefinition.js";
export {
  ALWAYS_LOAD_META,
  ENABLE_TOOLS_NAME,
  ENABLE_TOOLS_TOOL,
  ENABLE_TOOLS_TOOL_SEARCH,
  type ModelView,
  modelView,
} from "./modelView.js";
export { isUnicodeWhiteSpace, nameToKey } from "./nameToKey.js";
export { type OrderedEvent, orderConversation } from "./orderConversation.js";
export {
  type EventOrigin,
  type EventOriginKind,
  EventOriginKindSchema,
  EventOriginSchema,
} from "./origin.js";
export {
  type DefinitionKind,
  formatBytes,
  oversizedKind,
  oversizedMessage,
} from "./oversizedDefinition.js";
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
} from "./parseDeferralConfig.js";
export * from "./pinning/index.js";
export { fetchApplies, isStale } from "./registry/fetchApplies.js";
export { latestCompactionIndex, replay, replayFromLatestCompaction } from "./replay.js";
export {
  type ResolvedTool,
  type ResolveFailure,
  type ResolveOptions,
  type ResolveResult,
  resolveTool,
} from "./resolveTool.js";
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
  invalidEvent,
  isStorableId,
  matchesExpectedVersion,
  type SerializedBatch,
  serializeBatch,
} from "./serializeBatch.js";
export { servedTool } from "./servedTool.js";
export type { SessionStore, SessionSummary } from "./sessionStore.js";
export { type LoadedState, SnapshotFold, type SnapshotRow } from "./snapshotFold.js";
export { type SessionRow, SqlEventStore } from "./sqlEventStore.js";
export { staleExtensions } from "./staleExtensions.js";
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
} from "./state.js";
export {
  type AbortSignalLike,
  type AppendWaker,
  type SubscribeOptions,
  sleep,
  subscribe,
} from "./subscribe.js";
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
} from "./tasks/taskEvents.js";
export {
  findTask,
  NO_TASKS,
  OPEN_TASK_LIMIT,
  TASK_HISTORY_LIMIT,
  type TaskRecord,
  type TaskSummary,
} from "./tasks/taskSummary.js";
export { toolCallStats } from "./toolCallStats.js";
export {
  fitsWire,
  MAX_WIRE_NAME_LENGTH,
  MIN_WIRE_NAME_LENGTH,
  WIRE_NAME_PATTERN,
} from "./wireName.js";
