import { z } from "zod";
import { EVENT_SCHEMA_VERSION } from "../events/eventSchemaVersion.js";
import { origin } from "../events/origin.js";

const v = z.literal(EVENT_SCHEMA_VERSION);
const at = z.string().optional();

/**
 * S2: one `search_tools` call of a conversation: its query, the limit applied and the exact
 * names returned, in rank order. Recorded whether or not payloads are, so replay shows what
 * the model was offered; a refused query records its error and no names.
 */
export const ToolsSearchedSchema = z.object({
  type: z.literal("ToolsSearched"),
  v,
  at,
  /** The `search_tools` call's id (its ToolCallStarted). */
  callId: z.string(),
  query: z.string(),
  /** The number of results asked for (the default when the model gave none). */
  limit: z.number(),
  /** `regex` for a query written `/…/`. */
  kind: z.enum(["words", "regex"]).default("words"),
  /** The names returned (R14 wire names), best first. */
  results: z.array(z.string()).default([]),
  /** A regex search that used up its step budget: the results are those found before it. */
  truncated: z.boolean().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  origin,
});
export type ToolsSearched = z.infer<typeof ToolsSearchedSchema>;
