import type { ExtensionStatus } from "../host/extensionStatus.js";

/**
 * What the host does about an extension that is down, for the model and the user: the core
 * says that it is down and why (from the log), only the host knows what happens now.
 */
export function unavailableAdvice(status: ExtensionStatus | undefined, now = Date.now()): string {
  const others = "The other extensions' tools keep working.";
  switch (status?.phase) {
    case "ready":
      return "It has been restarted since: call the tool again.";
    case "starting":
    case "listing":
      // Issue 34.5: a first start that is taking long (a hang in initialize, a slow download).
      if (status.attempts <= 1)
        return `Its first start has not finished yet: its tools join when it is ready (the client is told with tools/list_changed); call the tool again then. ${others}`;
      return "It is starting again now: call the tool again in a moment.";
    case "authorizing":
      // The recorded reason already says how to authorize it (A4).
      return "Call the tool again once it is authorized.";
    case "retrying": {
      const wait = status.nextAttemptAt ? Math.max(0, Date.parse(status.nextAttemptAt) - now) : 0;
      return `toolledger is restarting it (next attempt in ${Math.ceil(wait / 100) / 10} s): call the tool again after that. ${others}`;
    }
    default:
      return `It is not being restarted (no restart left, or none configured): fix the server and restart toolledger, or reconnect it. ${others}`;
  }
}
