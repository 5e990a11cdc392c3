import type { ExtensionStatus } from "./host.js";

/**
 * What the host does about an extension that is down, for the model and the user: the core
 * says that it is down and why, only the host knows what happens next.
 */
export function unavailableAdvice(status: ExtensionStatus | undefined): string {
  if (status?.status === "connected") return "It has been reconnected since: call the tool again.";
  return "It is not restarted automatically: restart the gateway (toolledger serve) or reconnect the extension to bring it back. The other extensions' tools keep working.";
}
