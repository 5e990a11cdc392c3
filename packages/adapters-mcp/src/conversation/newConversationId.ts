import { randomUUID } from "node:crypto";
import { compactTime } from "../host/registryStreamId.js";

/** A new conversation stream id, sortable by start time. */
export function newConversationId(now: Date = new Date()): string {
  return `conv-${compactTime(now)}-${randomUUID().slice(0, 8)}`;
}
