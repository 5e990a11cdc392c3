export { AdapterError, type AdapterErrorCode, asAdapterError } from "./adapterError.js";
export type { ConnectionAuth } from "./connection/connectionAuth.js";
export {
  type ConnectOptions,
  type RequestLimits,
  type ToolCallResult,
  type ToolsPage,
  UPSTREAM_CLIENT_CAPABILITIES,
  type UpstreamMessage,
} from "./connection/connectionTypes.js";
export { ExtensionConnection } from "./connection/extensionConnection.js";
export { fetchPrompts, fetchResources } from "./connection/fetchCatalog.js";
export { type FetchedTools, type FetchToolsOptions, fetchTools } from "./connection/fetchTools.js";
export type {
  CallRefusalCode,
  CallToolOptions,
  CallToolOutcome,
} from "./conversation/callToolTypes.js";
export { Conversation, openConversation } from "./conversation/conversation.js";
export type {
  ConversationOptions,
  EnableDecision,
  EnableRequest,
} from "./conversation/conversationOptions.js";
export type { EnableToolsOutcome } from "./conversation/enableTools.js";
export { newConversationId } from "./conversation/newConversationId.js";
export {
  openStandaloneConversation,
  StandaloneConversation,
  type StandaloneConversationOptions,
} from "./conversation/standaloneConversation.js";
export {
  configFingerprint,
  describeConfig,
  type ExtensionConfig,
  type HttpExtensionConfig,
  type StdioExtensionConfig,
} from "./extensionConfig.js";
export { createGatewayServer, type Downstream } from "./gateway/createGatewayServer.js";
export { GATEWAY_CAPABILITIES } from "./gateway/gatewayCapabilities.js";
export { GatewayHub, type GatewayHubOptions } from "./gateway/gatewayHub.js";
export { gatewayInstructions } from "./gateway/gatewayInstructions.js";
export type {
  Gateway,
  GatewayOptions,
  HttpGateway,
  HttpGatewayOptions,
  StdioGatewayOptions,
} from "./gateway/gatewayOptions.js";
export { gatewayTools } from "./gateway/gatewayTools.js";
export { isLoopbackHost, MIN_TOKEN_LENGTH } from "./gateway/httpHost.js";
export { serveGatewayHttp } from "./gateway/serveGatewayHttp.js";
export { serveGatewayStdio } from "./gateway/serveGatewayStdio.js";
export type {
  UpstreamCallOptions,
  UpstreamNotification,
  UpstreamRequestHandler,
} from "./host/callUpstream.js";
export type {
  AddResult,
  ConnectionStatus,
  ExtensionPhase,
  ExtensionStatus,
} from "./host/extensionStatus.js";
export {
  DEFAULT_MAX_DEFINITION_BYTES,
  DEFAULT_RETRY,
  DEFAULT_STARTUP_GRACE_MS,
  type HostOptions,
  MAX_DEFINITION_BYTES,
  type RetryPolicy,
} from "./host/hostOptions.js";
export { compactTime, newRegistryStreamId } from "./host/registryStreamId.js";
export { openHost, ToolledgerHost } from "./host/toolledgerHost.js";
export type { StreamEvent } from "./ledger/streamEvent.js";
export { StreamWriter } from "./ledger/streamWriter.js";
export * from "./oauth/index.js";
export {
  capturePayload,
  MASKED,
  type PayloadCapture,
  REDACTED,
  redactSecrets,
} from "./redaction/capturePayload.js";
export { Redactor } from "./redaction/redactor.js";
export {
  exampleServers,
  SERVER_NAMES,
  type ServerName,
  serverScriptPath,
} from "./serverScriptPath.js";
