import { readSqliteSnapshot, type SnapshotQuery } from "@toolledger/store-sqlite";
import {
  EMPTY_TOKENS,
  type GooseLedgerRow,
  type GooseMessage,
  type GooseSession,
  num,
  readVisibility,
  str,
} from "./gooseSession.js";

/** A session row as listed, before its messages are read. */
export type GooseSessionHead = Omit<GooseSession, "messages" | "usageLedger">;

/**
 * Reads goose's `sessions.db` as goose wrote it, any schema version from the first SQLite
 * release (no `schema_version` table: version 0) to v16 (block/goose
 * `crates/goose/src/session/session_manager.rs` and `migrations.rs`: v1 schema_version, v2
 * user_recipe_values_json, v3 messages.metadata_json, v4 name/user_set_name, v5 session_type,
 * v6 provider_name/model_config_json, v7 messages.message_id, v8 goose_mode, v9 `acp` type,
 * v10 threads, v11 provider inventory, v12 archived_at/project_id, v13 accumulated_cost, v14
 * cache token columns, v15 parent_session_id + usage_ledger, v16 an index). Columns are chosen
 * by what the file has, so a version this code does not know still reads.
 *
 * Everything comes from one read-only snapshot (`readSqliteSnapshot`): safe while goose runs.
 * `pick` chooses which listed sessions to read in full.
 */
export function readGooseDatabase(
  file: string,
  pick: (heads: readonly GooseSessionHead[]) => readonly string[],
): { heads: GooseSessionHead[]; sessions: GooseSession[]; schemaVersion: number } {
  return readSqliteSnapshot(file, (q) => {
    const tables = q.tables();
    if (!tables.has("sessions") || !tables.has("messages")) {
      throw new GooseFormatError(
        `${file} is not goose's session database (it has no sessions and messages tables)`,
      );
    }
    const schemaVersion = tables.has("schema_version")
      ? (num(q.get<{ v: unknown }>("SELECT MAX(version) AS v FROM schema_version")?.v) ?? 0)
      : 0;
    const heads = readHeads(q, file, schemaVersion);
    const wanted = new Set(pick(heads));
    const sessions: GooseSession[] = [];
    const hasLedger = tables.has("usage_ledger");
    const messageColumns = q.columns("messages");
    for (const head of heads) {
      if (!wanted.has(head.id)) continue;
      sessions.push({
        ...head,
        messages: readMessages(q, head.id, messageColumns),
        usageLedger: hasLedger ? readLedger(q, head.id) : null,
      });
    }
    return { heads, sessions, schemaVersion };
  });
}

export class GooseFormatError extends Error {
  override readonly name = "GooseFormatError";
}

function readHeads(q: SnapshotQuery, file: string, schemaVersion: number): GooseSessionHead[] {
  const c = q.columns("sessions");
  const col = (name: string) => (c.has(name) ? name : `NULL AS ${name}`);
  const rows = q.all(
    `SELECT id, ${col("name")}, ${col("description")}, ${col("session_type")}, ${col("working_dir")},
       ${col("created_at")}, ${col("updated_at")}, ${col("extension_data")},
       ${col("total_tokens")}, ${col("input_tokens")}, ${col("output_tokens")},
       ${col("accumulated_total_tokens")}, ${col("accumulated_input_tokens")},
       ${col("accumulated_output_tokens")}, ${col("accumulated_cost")}, ${col("parent_session_id")}
     FROM sessions ORDER BY created_at, id`,
  );
  return rows.map((r) => {
    // goose reads `name`, falling back to the v0–v3 `description` (Session::from_row).
    const name = str(r.name) || str(r.description) || null;
    return {
      id: String(r.id),
      format: "sqlite",
      path: file,
      schemaVersion,
      name,
      workingDir: str(r.working_dir),
      sessionType: str(r.session_type) ?? "user",
      parentSessionId: str(r.parent_session_id),
      createdAt: sqliteTime(r.created_at),
      updatedAt: sqliteTime(r.updated_at),
      extensionData: parseObject(r.extension_data),
      tokens: {
        ...EMPTY_TOKENS,
        input: num(r.input_tokens),
        output: num(r.output_tokens),
        total: num(r.total_tokens),
        accumulatedInput: num(r.accumulated_input_tokens),
        accumulatedOutput: num(r.accumulated_output_tokens),
        accumulatedTotal: num(r.accumulated_total_tokens),
        accumulatedCost: num(r.accumulated_cost),
      },
    };
  });
}

function readMessages(
  q: SnapshotQuery,
  sessionId: string,
  columns: ReadonlySet<string>,
): GooseMessage[] {
  const metadata = columns.has("metadata_json") ? "metadata_json" : "NULL AS metadata_json";
  const messageId = columns.has("message_id") ? "message_id" : "NULL AS message_id";
  // goose's get_conversation: `ORDER BY created_timestamp, id` (earlier: `ORDER BY timestamp`,
  // which the rowid then breaks ties of).
  const rows = q.all(
    `SELECT id, role, content_json, created_timestamp, ${metadata}, ${messageId}
     FROM messages WHERE session_id = ? ORDER BY created_timestamp, id`,
    sessionId,
  );
  const out: GooseMessage[] = [];
  for (const r of rows) {
    const content = parseArray(r.content_json);
    out.push({
      messageId: str(r.message_id),
      role: String(r.role),
      created: num(r.created_timestamp) ?? 0,
      // Content goose itself could not read is counted as one unknown block.
      content: content ?? [{ type: "(unreadable content_json)" }],
      ...readVisibility(parseObject(r.metadata_json)),
      place: `messages row ${String(r.id)}`,
    });
  }
  return out;
}

function readLedger(q: SnapshotQuery, sessionId: string): GooseLedgerRow[] {
  return q
    .all("SELECT * FROM usage_ledger WHERE session_id = ? ORDER BY id", sessionId)
    .map((r) => ({
      id: num(r.id) ?? 0,
      createdTimestamp: num(r.created_timestamp) ?? 0,
      model: str(r.model),
      inputTokens: num(r.input_tokens),
      outputTokens: num(r.output_tokens),
      totalTokens: num(r.total_tokens),
      cacheReadTokens: num(r.cache_read_tokens),
      cacheWriteTokens: num(r.cache_write_tokens),
      cost: num(r.cost),
      costSource: str(r.cost_source),
      isCompaction: num(r.is_compaction) === 1,
    }));
}

/** SQLite's `CURRENT_TIMESTAMP` text (UTC, `YYYY-MM-DD HH:MM:SS`) or sqlx's RFC 3339 as ISO-8601. */
export function sqliteTime(v: unknown): string | null {
  if (typeof v !== "string" || v === "") return null;
  let iso = v.replace(/^(\d{4}-\d{2}-\d{2}) /, "$1T");
  if (!/(Z|[+-]\d{2}:?\d{2})$/.test(iso)) iso += "Z";
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

function parseObject(v: unknown): Record<string, unknown> {
  if (typeof v !== "string") return {};
  try {
    const parsed: unknown = JSON.parse(v);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function parseArray(v: unknown): unknown[] | null {
  if (typeof v !== "string") return null;
  try {
    const parsed: unknown = JSON.parse(v);
    return Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}
