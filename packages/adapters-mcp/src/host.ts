// The host (C1), split by operation in host/: the face (toolledgerHost.ts), one supervisor
// per extension (extensionSupervisor.ts: its connection, attempts, backoff and phase), the
// recording of fetches and catalogs (recordToolsFetch.ts, recordCatalog.ts), the keyed
// refetch scheduler (refetchScheduler.ts, extensionLists.ts), the upstream call with its
// probe (callUpstream.ts), and the options and status types.
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
