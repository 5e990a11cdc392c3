// C4: a tool call's start and finish.
import { z } from "zod";
import { EVENT_SCHEMA_VERSION } from "../events/eventSchemaVersion.js";
import { origin } from "../events/origin.js";

const v = z.literal(EVENT_SCHEMA_VERSION);
/** Optional ISO-8601 time supplied by whoever appends the event (E2: never made by the reducer). */
const at = z.string().optional();

/**
 * C4: how a tool call ended. `unknown` (L3): nobody saw it end; its gateway stopped (killed,
 * crashed) after its start was stored, and the next process to open the conversation said so.
 */
export const CallOutcomeSchema = z.enum([
  "ok",
  "tool_error",
  "refused",
  "timeout",
  "cancelled",
  "unavailable",
  "unknown",
]);
export type CallOutcome = z.infer<typeof CallOutcomeSchema>;

/** C4: a `tools/call` reached the conversation. Owner and raw name are null when it did not resolve. */
export const ToolCallStartedSchema = z.object({
  type: z.literal("ToolCallStarted"),
  v,
  at,
  callId: z.string().min(1),
  /** The name exactly as the client called it. */
  name: z.string(),
  /** The public name it resolved to (R13), or null. */
  publicName: z.string().nullable().default(null),
  owner: z.string().nullable().default(null),
  rawName: z.string().nullable().default(null),
  /** Recorded only when the host opts in: truncated, secrets redacted. */
  arguments: z.unknown().optional(),
  origin,
});
export type ToolCallStarted = z.infer<typeof ToolCallStartedSchema>;

/** C4: the outcome of a started call; `reason` is the refusal code when `outcome` is `refused`. */
export const ToolCallFinishedSchema = z.object({
  type: z.literal("ToolCallFinished"),
  v,
  at,
  callId: z.string().min(1),
  outcome: CallOutcomeSchema,
  durationMs: z.number().nonnegative(),
  reason: z.string().nullable().default(null),
  /** The error text (a refusal's message, a tool error's text, a timeout); secret-free. */
  error: z.string().nullable().default(null),
  /** Recorded only when the host opts in: truncated, secrets redacted. */
  result: z.unknown().optional(),
  origin,
});
export type ToolCallFinished = z.infer<typeof ToolCallFinishedSchema>;
