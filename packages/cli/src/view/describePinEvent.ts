import { nameToKey } from "@toolledger/core";
import { createStyle } from "../output/style.js";
import { formatPinChange, pinChanges } from "../replay/pinChanges.js";
import type { AnyEvent, EventDescription, Severity } from "./eventDescription.js";

const plain = createStyle(false);
const PIN_TYPES = new Set([
  "PinPolicySet",
  "PinsCarried",
  "DefinitionsPinned",
  "DefinitionsChanged",
  "DefinitionsRestored",
  "DefinitionsApproved",
  "DefinitionsRejected",
]);

/** Whether the timeline describes `event` as a pin event (P1–P6). */
export function isPinEvent(event: AnyEvent): boolean {
  return PIN_TYPES.has(event.type);
}

/**
 * P2–P6 on the timeline: a definition that changed, is new or was flagged is marked (warn,
 * or error when a check fired), an approval is ok, a rejection a warning.
 */
export function describePinEvent(event: AnyEvent): EventDescription {
  const key = nameToKey(typeof event.extension === "string" ? event.extension : "");
  const changes = pinChanges(event as never);
  const text =
    changes.map((c) => formatPinChange(c, plain)).join("; ") || `${event.type} of ${key}`;
  const flagged = changes.some((c) => c.kind === "definition_changed" && c.checks.length > 0);
  const severity: Severity =
    event.type === "DefinitionsChanged"
      ? flagged
        ? "error"
        : "warn"
      : event.type === "DefinitionsApproved"
        ? "ok"
        : event.type === "DefinitionsRejected"
          ? "warn"
          : "info";
  const rules =
    event.type === "DefinitionsChanged"
      ? flagged
        ? ["P3", "P2"]
        : ["P2"]
      : event.type === "DefinitionsApproved" || event.type === "DefinitionsRejected"
        ? ["P6"]
        : event.type === "PinPolicySet"
          ? ["P5"]
          : event.type === "PinsCarried"
            ? ["P4"]
            : ["P2", "P1"];
  return { extensions: [key], text, severity, rules };
}
