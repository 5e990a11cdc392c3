export { isLoopbackHost, MIN_TOKEN_LENGTH } from "./_httpHost.js";
export { AdapterError, type AdapterErrorCode, asAdapterError } from "./adapterError.js";
export {
  capturePayload,
  MASKED,
  type PayloadCapture,
  REDACTED,
  redactSecrets,
} from "./capturePayload.js";
export {
  type CallRefusalCode,
  type CallToolOptions,
  type CallToolOutcome,
  Conversation,
  type ConversationOptions,
  type EnableDecision,
  type EnableRequest,
  type EnableToolsOutcome,
  newConversationId,
  openConversation,
} from "./conversation.js";
export {
  configFingerprint,
  describeConfig,
  type ExtensionConfig,
  type HttpExtensionConfig,
  type StdioExtensionConfig,
} from "./extensionConfig.js";
export {
  type ConnectOptions,
  ExtensionConnection,
  type RequestLimits,
  type ToolCallResult,
  type ToolsPage,
  UPSTREAM_CLIENT_CAPABILITIES,
  type UpstreamMessage,
} from "./extensionConnection.js";
export { fetchPrompts, fetchResources } from "./fetchCatalog.js";
export { type FetchedTools, type FetchToolsOptions, fetchTools } from "./fetchTools.js";
export {
  createGatewayServer,
  GATEWAY_CAPABILITIES,
  type Gateway,
  type GatewayOptions,
  gatewayInstructions,
  gatewayTools,
  type HttpGateway,
  type HttpGatewayOptions,
  type StdioGatewayOptions,
  serveGatewayHttp,
  serveGatewayStdio,
} from "./gateway.js";
export {
  type AddResult,
  type ConnectionStatus,
  compactTime,
  DEFAULT_RETRY,
  DEFAULT_STARTUP_GRACE_MS,
  type ExtensionPhase,
  type ExtensionStatus,
  type HostOptions,
  newRegistryStreamId,
  openHost,
  type RetryPolicy,
  ToolledgerHost,
  type UpstreamCallOptions,
  type UpstreamNotification,
  type UpstreamRequestHandler,
} from "./host.js";
export { Redactor } from "./redactor.js";
export {
  exampleServers,
  SERVER_NAMES,
  type ServerName,
  serverScriptPath,
} from "./serverScriptPath.js";
export { openSession, type SessionOptions, ToolledgerSession } from "./session.js";
export { type SessionEvent, StreamWriter } from "./streamWriter.js";
