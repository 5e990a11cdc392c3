import { writeFileSync } from "node:fs";
import type { GooseDatabase } from "./gooseDatabase.js";
import type { Msg } from "./gooseMessages.js";

/**
 * `goose session export --format json`: `serde_json::to_string_pretty(&session)` of the
 * session with its conversation (session_manager.rs `export_session`; Session in model.rs,
 * Conversation serialised as the list of messages).
 */
export function writeExport(g: GooseDatabase, sessionId: string, file: string): void {
  const row = g.db.prepare("SELECT * FROM sessions WHERE id = ?").get(sessionId) as Record<
    string,
    unknown
  >;
  const conversation = g.conversation(sessionId);
  const session = {
    id: sessionId,
    working_dir: row.working_dir,
    name: row.name ?? row.description,
    user_set_name: false,
    session_type: row.session_type ?? "user",
    created_at: toRfc3339(row.created_at),
    updated_at: toRfc3339(row.updated_at),
    extension_data: JSON.parse(String(row.extension_data ?? "{}")),
    total_tokens: row.total_tokens ?? null,
    input_tokens: row.input_tokens ?? null,
    output_tokens: row.output_tokens ?? null,
    accumulated_total_tokens: row.accumulated_total_tokens ?? null,
    accumulated_input_tokens: row.accumulated_input_tokens ?? null,
    accumulated_output_tokens: row.accumulated_output_tokens ?? null,
    schedule_id: null,
    recipe: null,
    user_recipe_values: null,
    conversation,
    message_count: conversation.length,
    parent_session_id: row.parent_session_id ?? null,
  };
  writeFileSync(file, JSON.stringify(session, null, 2));
}

/**
 * A session file of goose before its SQLite store (session/storage.rs): the SessionMetadata
 * line, then one Message per line (tool results as the `Vec<Content>` of the time).
 */
export function writeLegacyJsonl(
  file: string,
  metadata: Record<string, unknown>,
  messages: readonly Msg[],
): void {
  const lines = [
    JSON.stringify(metadata),
    ...messages.map((m) =>
      JSON.stringify({ role: m.role, created: m.created, content: m.content }),
    ),
  ];
  writeFileSync(file, `${lines.join("\n")}\n`);
}

function toRfc3339(v: unknown): string {
  return typeof v === "string" ? `${v.replace(" ", "T")}Z` : new Date(0).toISOString();
}
