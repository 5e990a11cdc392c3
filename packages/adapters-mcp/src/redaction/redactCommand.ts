import type { Command } from "@toolledger/core";
import type { Redactor } from "./redactor.js";

/**
 * Fields that name what the host itself named (its config, its streams, the call and its
 * outcome): never rewritten, so an env value that happens to equal a server's name or kind
 * cannot rename it. Everything else (tool lists, error text, payloads, client info) is.
 */
const IDENTITY = new Set([
  "type",
  "at",
  "kind",
  "exposeUnprefixed",
  "hidden",
  "availableTools",
  "configFingerprint",
  "extension",
  "startedAtVersion",
  "mode",
  "alwaysLoad",
  "callId",
  "names",
  "hostname",
  "pid",
  "toolledgerVersion",
  "registryStream",
  "protocolVersion",
  "transport",
  "outcome",
  "durationMs",
  "reason",
  "includeHidden",
  "policy",
  "list",
  "ledgerVersion",
  "baselines",
]);

/** R6: a command as it may become an event, every server-supplied text redacted. */
export function redactCommand(command: Command, redactor: Redactor): Command {
  if (redactor.size === 0) return command;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(command)) {
    // An extension's display name is config; a called tool's name is the model's text.
    const keep = key === "name" ? command.type === "AddExtension" : IDENTITY.has(key);
    const next = keep ? value : redactor.redactValue(value);
    if (next !== value) changed = true;
    out[key] = next;
  }
  return changed ? (out as unknown as Command) : command;
}
