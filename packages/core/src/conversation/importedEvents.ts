import { z } from "zod";
import { EVENT_SCHEMA_VERSION } from "../events/eventSchemaVersion.js";
import { origin } from "../events/origin.js";

const v = z.literal(EVENT_SCHEMA_VERSION);
const at = z.string().optional();

/**
 * A conversation imported from another host's session store (issue 26: goose's `sessions.db`,
 * its `session export` JSON, its legacy JSONL files). Written once, right after the
 * conversation's `ConversationStarted`; what the source said about the session itself.
 */
export const SessionImportedSchema = z.object({
  type: z.literal("SessionImported"),
  v,
  at,
  /** The host whose session this is (`goose`). */
  host: z.string().min(1),
  /** How it was read: `sqlite` (the host's database), `export` (its JSON export), `jsonl` (a legacy file). */
  format: z.string().min(1),
  /** The session's id in the source. */
  sourceSession: z.string().min(1),
  /** The file it was read from. */
  sourcePath: z.string(),
  /** The source database's schema version, when it has one. */
  schemaVersion: z.number().int().nonnegative().nullable().default(null),
  /** The session's name (goose's `name`, formerly `description`). */
  name: z.string().nullable().default(null),
  workingDir: z.string().nullable().default(null),
  /** The source's own kind of session (goose: `user`, `scheduled`, `sub_agent`, …). */
  sessionType: z.string().nullable().default(null),
  /** A sub-agent's parent: its id in the source, and the conversation it was imported as. */
  parentSourceSession: z.string().nullable().default(null),
  parentConversation: z.string().nullable().default(null),
  /** What the source could not say, in sentences (a clear it kept no marker of, …). */
  notes: z.array(z.string()).default([]),
  origin,
});
export type SessionImported = z.infer<typeof SessionImportedSchema>;

/**
 * Token usage of one model call (a turn), as the source's usage ledger recorded it; a
 * conversation's own, never summed into its registry. Counts are null where the source has none.
 */
export const UsageRecordedSchema = z.object({
  type: z.literal("UsageRecorded"),
  v,
  at,
  model: z.string().nullable().default(null),
  inputTokens: z.number().int().nullable().default(null),
  outputTokens: z.number().int().nullable().default(null),
  totalTokens: z.number().int().nullable().default(null),
  cacheReadTokens: z.number().int().nullable().default(null),
  cacheWriteTokens: z.number().int().nullable().default(null),
  cost: z.number().nullable().default(null),
  /** goose: `provider_reported`, `estimated` or `carried_forward` (spend from before its ledger). */
  costSource: z.string().nullable().default(null),
  /** The call summarised the conversation (compaction) rather than answering a turn. */
  compaction: z.boolean().default(false),
  origin,
});
export type UsageRecorded = z.infer<typeof UsageRecordedSchema>;
