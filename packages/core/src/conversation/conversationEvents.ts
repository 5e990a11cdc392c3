// C2/C5: a conversation's opening, resumption and close.
import { z } from "zod";
import { EVENT_SCHEMA_VERSION } from "../events/eventSchemaVersion.js";
import { origin } from "../events/origin.js";

const v = z.literal(EVENT_SCHEMA_VERSION);
/** Optional ISO-8601 time supplied by whoever appends the event (E2: never made by the reducer). */
const at = z.string().optional();

/** C5: who is on the other end of a conversation. */
export const ConversationClientSchema = z.object({
  /** `clientInfo` as the client sent it at `initialize`. */
  name: z.string(),
  version: z.string(),
});
export type ConversationClient = z.infer<typeof ConversationClientSchema>;

/** C1/C5: what a conversation records when it opens: its registry stream and its client. */
const conversationOpening = {
  v,
  at,
  registryStream: z.string().min(1),
  client: ConversationClientSchema.nullable().default(null),
  protocolVersion: z.string().nullable().default(null),
  /** `stdio`, `streamable_http`, `in_process`, or a host-defined transport. */
  transport: z.string().nullable().default(null),
  hostname: z.string().nullable().default(null),
};

/**
 * C1/C5: the first event of a conversation stream. `registryStream` names the host stream
 * whose registry events the conversation observes (merged in global order).
 */
export const ConversationStartedSchema = z.object({
  type: z.literal("ConversationStarted"),
  ...conversationOpening,
  origin,
});
export type ConversationStarted = z.infer<typeof ConversationStartedSchema>;

/** C3: a conversation was reopened (resumed) by a host, possibly on a new registry stream. */
export const ConversationResumedSchema = z.object({
  type: z.literal("ConversationResumed"),
  ...conversationOpening,
  origin,
});
export type ConversationResumed = z.infer<typeof ConversationResumedSchema>;

/** C3: the conversation's MCP session ended (or its host stopped). */
export const ConversationClosedSchema = z.object({
  type: z.literal("ConversationClosed"),
  v,
  at,
  reason: z.string(),
  /**
   * L3: with reason `lost`, the last time its gateway was seen alive (its lease renewed, or its
   * last event stored); the close itself is recorded later, by whoever found it gone.
   */
  lastSeen: z.string().optional(),
  origin,
});
export type ConversationClosed = z.infer<typeof ConversationClosedSchema>;
