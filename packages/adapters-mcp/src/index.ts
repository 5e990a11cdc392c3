export { AdapterError, type AdapterErrorCode, asAdapterError } from "./adapterError.js";
export {
  capturePayload,
  MASKED,
  type PayloadCapture,
  REDACTED,
  redactSecrets,
} from "./capturePayload.js";
export type { ConnectionAuth } from "./connection/connectionAuth.js";
export {
  type ConnectOptions,
  type RequestLimits,
  type ToolCallResult,
  type ToolsPage,
  UPSTREAM_CLIENT_CAPABILITIES,
  type UpstreamMessage,
} from "./connection/connectionTypes.js";
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
  configFingerprint,
  describeConfig,
  type ExtensionConfig,
  type HttpExtensionConfig,
  type StdioExtensionConfig,
} from "./extensionConfig.js";
export { ExtensionConnection } from "./extensionConnection.js";
export { fetchPrompts, fetchResources } from "./fetchCatalog.js";
export { type FetchedTools, type FetchToolsOptions, fetchTools } from "./fetchTools.js";
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
export {
  type AddResult,
  type ConnectionStatus,
  compactTime,
  DEFAULT_MAX_DEFINITION_BYTES,
  DEFAULT_RETRY,
  DEFAULT_STARTUP_GRACE_MS,
  type ExtensionPhase,
  type ExtensionStatus,
  type HostOptions,
  MAX_DEFINITION_BYTES,
  newRegistryStreamId,
  openHost,
  type RetryPolicy,
  ToolledgerHost,
  type UpstreamCallOptions,
  type UpstreamNotification,
  type UpstreamRequestHandler,
} from "./host.js";
export * from "./oauth/index.js";
export { Redactor } from "./redactor.js";
export {
  exampleServers,
  SERVER_NAMES,
  type ServerName,
  serverScriptPath,
} from "./serverScriptPath.js";
export { openSession, type SessionOptions, ToolledgerSession } from "./session.js";
export { type SessionEvent, StreamWriter } from "./streamWriter.js";
