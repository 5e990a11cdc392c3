export { AdapterError, type AdapterErrorCode } from "./adapterError.js";
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
} from "./extensionConnection.js";
export { type FetchedTools, type FetchToolsOptions, fetchTools } from "./fetchTools.js";
export {
  createGatewayServer,
  type Gateway,
  type GatewayOptions,
  gatewayTools,
  type HttpGateway,
  type HttpGatewayOptions,
  serveGatewayHttp,
  serveGatewayStdio,
} from "./gateway.js";
export { Redactor } from "./redactor.js";
export {
  exampleServers,
  SERVER_NAMES,
  type ServerName,
  serverScriptPath,
} from "./serverScriptPath.js";
export {
  type AddResult,
  type CallRefusalCode,
  type CallToolOptions,
  type CallToolOutcome,
  type ConnectionStatus,
  type EnableToolsOutcome,
  type ExtensionStatus,
  openSession,
  type SessionEvent,
  type SessionOptions,
  ToolledgerSession,
} from "./session.js";
