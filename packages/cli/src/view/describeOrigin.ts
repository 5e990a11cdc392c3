import type { State } from "@toolledger/core";
import { callRegistryMark } from "../explain/callRegistryMark.js";
import type { EventDescription } from "./eventDescription.js";

type AnyEvent = { type: string } & Record<string, unknown>;

/**
 * The timeline line of an imported event (issue 26): its origin when it is not exact, and, for
 * a call another host let through, that the tool was unknown, or deferred and not enabled at
 * that moment (D9: toolledger's gateway would have refused it).
 */
export function withOrigin<D extends EventDescription>(d: D, event: AnyEvent, before: State): D {
  const origin = event.origin as { kind?: unknown; note?: unknown } | undefined;
  if (!origin || typeof origin.kind !== "string") return d;
  let text = d.text;
  let severity = d.severity;
  const rules = [...d.rules];
  if (event.type === "ToolCallStarted") {
    const mark = callRegistryMark(before, event);
    if (mark === "unknown") {
      text += " — unknown tool: no extension of the session had it";
      severity = "warn";
      rules.push("R13");
    } else if (mark === "deferred") {
      text += " — deferred and not enabled (goose ran it; toolledger's gateway refuses it, D9)";
      severity = "warn";
      rules.push("D9");
    }
  }
  if (origin.kind !== "exact")
    text += ` [${origin.kind}${typeof origin.note === "string" ? `: ${origin.note}` : ""}]`;
  return { ...d, text, severity, rules };
}
