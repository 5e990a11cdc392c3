import type { z } from "zod";
import { CallOutcomeSchema } from "../events/events.js";
import { FinishCallCommandSchema, StartCallCommandSchema } from "./command.js";

type StartCall = z.output<typeof StartCallCommandSchema>;
type FinishCall = z.output<typeof FinishCallCommandSchema>;

const START_KEYS: ReadonlySet<string> = new Set(Object.keys(StartCallCommandSchema.shape));
const FINISH_KEYS: ReadonlySet<string> = new Set(Object.keys(FinishCallCommandSchema.shape));
const OUTCOMES = new Set<string>(CallOutcomeSchema.options);

/**
 * E6 for the two commands every tools/call decides (C4): a hand check of exactly what
 * StartCallCommandSchema / FinishCallCommandSchema accept, without zod's per-call cost.
 * Returns the command when it is plainly valid, null when zod must decide (and word the
 * refusal): a command this accepts, the schema accepts (property-tested).
 */
export function parseCallCommand(input: object): StartCall | FinishCall | null {
  const proto = Object.getPrototypeOf(input);
  if (proto !== Object.prototype && proto !== null) return null;
  const c = input as Record<string, unknown>;
  if (c.at !== undefined && typeof c.at !== "string") return null;
  if (typeof c.callId !== "string" || c.callId.length === 0) return null;
  if (c.type === "StartCall") {
    if (typeof c.name !== "string") return null;
    if (c.includeHidden !== undefined && typeof c.includeHidden !== "boolean") return null;
    // Own keys only (the prototype is Object.prototype or null, which have no enumerable ones).
    for (const key in c) if (!START_KEYS.has(key)) return null;
    return c as StartCall;
  }
  if (c.type === "FinishCall") {
    if (typeof c.outcome !== "string" || !OUTCOMES.has(c.outcome)) return null;
    const d = c.durationMs;
    if (typeof d !== "number" || !Number.isFinite(d) || d < 0) return null;
    if (c.reason !== undefined && typeof c.reason !== "string") return null;
    if (c.error !== undefined && typeof c.error !== "string") return null;
    for (const key in c) if (!FINISH_KEYS.has(key)) return null;
    return c as FinishCall;
  }
  return null;
}
