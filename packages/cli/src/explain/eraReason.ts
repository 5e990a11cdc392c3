import { type ExtensionEraDetected, nameToKey } from "@toolledger/core";
import { describeEraChange, eraChange } from "../replay/eraChange.js";
import type { LogEntry } from "../session/logEntry.js";
import type { Reason } from "./explanation.js";

/**
 * V1 for `explain`: which protocol era the tool's server speaks, from its latest
 * `ExtensionEraDetected`, citing it. Null for a server without a verdict in the log.
 */
export function eraReason(entries: readonly LogEntry[], extension: string | null): Reason | null {
  if (extension === null) return null;
  const key = nameToKey(extension);
  const last = entries.findLast(
    (e) =>
      e.event.type === "ExtensionEraDetected" &&
      nameToKey((e.event as ExtensionEraDetected).extension) === key,
  );
  if (!last) return null;
  return {
    rule: "V1",
    text: `its server ${describeEraChange(eraChange(last.event as ExtensionEraDetected))}`,
    positions: [last.label ?? last.position],
  };
}
