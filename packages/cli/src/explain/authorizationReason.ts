import { nameToKey } from "@toolledger/core";
import { describeOAuthChange, isOAuthEvent, oauthChange } from "../replay/oauthChange.js";
import type { LogEntry } from "../session/logEntry.js";
import type { Reason } from "./explanation.js";

/**
 * A1–A4 for `explain`: how the tool's server is authorized, from its OAuth events (the latest
 * one, and how many refreshes), citing their positions. Null for a server without OAuth events.
 */
export function authorizationReason(
  entries: readonly LogEntry[],
  extension: string | null,
): Reason | null {
  if (extension === null) return null;
  const key = nameToKey(extension);
  const mine = entries.filter(
    (e) => isOAuthEvent(e.event) && nameToKey((e.event as { extension: string }).extension) === key,
  );
  const last = mine.at(-1);
  if (!last) return null;
  const refreshes = mine.filter((e) => e.event.type === "OAuthTokenRefreshed").length;
  const change = oauthChange(last.event)!;
  return {
    rule: change.event === "refreshed" || change.event === "authorized" ? "A2" : "A4",
    text: `its server's OAuth: ${describeOAuthChange(change)}${refreshes > 0 ? `; ${refreshes} refresh(es) recorded` : ""}`,
    positions: mine.map((e) => e.label ?? e.position),
  };
}
