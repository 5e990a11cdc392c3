import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { type Msg, systemNotification, text, userText } from "./gooseMessages.js";

/** The newest sessions.db schema this emulator writes (block/goose session_manager.rs). */
export const LATEST_GOOSE_SCHEMA = 16;

/**
 * An emulation of goose's `SessionStorage` for fixtures: the database of the first SQLite
 * release (no schema_version table; its tables reconstructed from what migrations 1–4 add),
 * upgraded by goose's migrations 1…N as goose applies them, WAL as sqlx opens it, and
 * `add_message`, `replace_conversation`, `record_usage_metrics`, `/compact` and `/clear`
 * written the way goose writes them. Written from reading goose's source; nothing copied.
 */
export class GooseDatabase {
  readonly db: Database.Database;
  readonly version: number;

  /** goose opening its existing database (busy_timeout 5 s, as SessionStorage::get_pool). */
  static open(file: string): GooseDatabase {
    return new GooseDatabase(file, null);
  }

  constructor(file: string, version: number | null = LATEST_GOOSE_SCHEMA) {
    this.db = new Database(file, { timeout: 5000 });
    // sqlx's SqliteConnectOptions default journal mode.
    this.db.pragma("journal_mode = WAL");
    if (version === null) {
      this.version = (
        this.db.prepare("SELECT MAX(version) AS v FROM schema_version").get() as { v: number }
      ).v;
      return;
    }
    this.version = version;
    this.db.exec(`
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        description TEXT NOT NULL DEFAULT '',
        working_dir TEXT NOT NULL,
        created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
        updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
        extension_data TEXT DEFAULT '{}',
        total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
        accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
        schedule_id TEXT, recipe_json TEXT
      );
      CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions(id),
        role TEXT NOT NULL,
        content_json TEXT NOT NULL,
        created_timestamp INTEGER NOT NULL,
        timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
        tokens INTEGER
      );
      CREATE INDEX idx_messages_session ON messages(session_id);
      CREATE INDEX idx_messages_timestamp ON messages(timestamp);
      CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC);
    `);
    for (let v = 1; v <= version; v++) {
      this.db
        .transaction(() => {
          migrate(this.db, v);
          this.db.prepare("INSERT INTO schema_version (version) VALUES (?)").run(v);
        })
        .immediate();
    }
  }

  has(table: string, column: string): boolean {
    return (
      (
        this.db
          .prepare("SELECT COUNT(*) AS n FROM pragma_table_info(?) WHERE name = ?")
          .get(table, column) as { n: number }
      ).n > 0
    );
  }

  /** create_session: ids `YYYYMMDD_<n>`; the name went to `description` before v4. */
  createSession(o: {
    name: string;
    workingDir?: string;
    type?: string;
    parent?: string;
    day?: string;
    createdAt?: string;
  }): string {
    const day = o.day ?? "20261130";
    const n =
      ((
        this.db
          .prepare(
            "SELECT MAX(CAST(SUBSTR(id, 10) AS INTEGER)) AS n FROM sessions WHERE id LIKE ? || '_%'",
          )
          .get(day) as { n: number | null }
      ).n ?? 0) + 1;
    const id = `${day}_${n}`;
    const cols = ["id", "working_dir", "extension_data"];
    const vals: unknown[] = [id, o.workingDir ?? "/home/dev/project", "{}"];
    cols.push(this.has("sessions", "name") ? "name" : "description");
    vals.push(o.name);
    if (this.has("sessions", "session_type")) {
      cols.push("session_type");
      vals.push(o.type ?? "user");
    }
    if (o.parent !== undefined && this.has("sessions", "parent_session_id")) {
      cols.push("parent_session_id");
      vals.push(o.parent);
    }
    if (o.createdAt) {
      cols.push("created_at", "updated_at");
      vals.push(o.createdAt, o.createdAt);
    }
    this.db
      .prepare(
        `INSERT INTO sessions (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`,
      )
      .run(...vals);
    return id;
  }

  /** The enabled-extensions state (session/extension_data.rs), as `update_session().extension_data()` writes it. */
  setExtensions(sessionId: string, extensions: unknown[]): void {
    this.db
      .prepare("UPDATE sessions SET extension_data = ?, updated_at = datetime('now') WHERE id = ?")
      .run(JSON.stringify({ "enabled_extensions.v0": { extensions } }), sessionId);
  }

  /** add_message. */
  addMessage(sessionId: string, m: Msg): void {
    this.db.transaction(() => this.insert(sessionId, m)).immediate();
    this.db.prepare("UPDATE sessions SET updated_at = datetime('now') WHERE id = ?").run(sessionId);
  }

  addMessages(sessionId: string, ...ms: (Msg | Msg[])[]): void {
    for (const m of ms.flat()) this.addMessage(sessionId, m);
  }

  /** replace_conversation: delete every message, insert the new list (one transaction). */
  replaceConversation(sessionId: string, ms: readonly Msg[]): void {
    this.db
      .transaction(() => {
        this.db.prepare("DELETE FROM messages WHERE session_id = ?").run(sessionId);
        for (const m of ms) this.insert(sessionId, m);
      })
      .immediate();
  }

  /** get_conversation (what goose reads back: ids kept from v7 on). */
  conversation(sessionId: string): Msg[] {
    const meta = this.has("messages", "metadata_json") ? "metadata_json" : "NULL AS metadata_json";
    const mid = this.has("messages", "message_id") ? "message_id" : "NULL AS message_id";
    return (
      this.db
        .prepare(
          `SELECT role, content_json, created_timestamp, ${meta}, ${mid} FROM messages WHERE session_id = ? ORDER BY created_timestamp, id`,
        )
        .all(sessionId) as {
        role: "user" | "assistant";
        content_json: string;
        created_timestamp: number;
        metadata_json: string | null;
        message_id: string | null;
      }[]
    ).map((r) => ({
      ...(r.message_id ? { id: r.message_id } : {}),
      role: r.role,
      created: r.created_timestamp,
      content: JSON.parse(r.content_json) as unknown[],
      metadata: r.metadata_json
        ? JSON.parse(r.metadata_json)
        : { userVisible: true, agentVisible: true },
    }));
  }

  /**
   * context_mgmt/mod.rs compact_messages, then replace_conversation: every message kept but
   * agent-invisible, the summary (agent-only, role user), the continuation (agent-only); a
   * manual /compact also records the command and `Compaction complete` (user-visible only).
   */
  compact(sessionId: string, created: number, summary: string, manual: boolean): void {
    const kept = this.conversation(sessionId).map((m) => ({
      ...m,
      metadata: { ...m.metadata, agentVisible: false },
    }));
    const continuation = manual
      ? "Your context was compacted at the user's request. The previous message contains a summary of the conversation so far.\nDo not mention that you read a summary or that conversation summarization occurred.\nJust continue the conversation naturally based on the summarized context."
      : "Your context was compacted. The previous message contains a summary of the conversation so far.\nDo not mention that you read a summary or that conversation summarization occurred.\nContinue calling tools as necessary to complete the task.";
    this.replaceConversation(sessionId, [
      ...kept,
      {
        role: "user",
        created,
        content: [text(summary)],
        metadata: { userVisible: false, agentVisible: true },
      },
      {
        role: "assistant",
        created,
        content: [text(continuation)],
        metadata: { userVisible: false, agentVisible: true },
      },
    ]);
    if (manual) {
      this.addMessage(sessionId, {
        ...userText(created, "/compact"),
        metadata: { userVisible: true, agentVisible: false },
      });
      this.addMessage(sessionId, systemNotification(created, "Compaction complete"));
    }
  }

  /** goose before 1.14: a `conversationCompacted { msg }` block where it compacted. */
  compactLegacy(sessionId: string, created: number, msg: string): void {
    this.addMessage(sessionId, {
      role: "assistant",
      created,
      content: [{ type: "conversationCompacted", msg }],
      metadata: { userVisible: true, agentVisible: false },
    });
  }

  /** execute_commands.rs handle_clear_command, then the reply loop's two user-visible messages. */
  clear(sessionId: string, created: number): void {
    this.replaceConversation(sessionId, []);
    this.addMessage(sessionId, {
      ...userText(created, "/clear"),
      metadata: { userVisible: true, agentVisible: false },
    });
    this.addMessage(sessionId, systemNotification(created, "Conversation cleared"));
  }

  /** The CLI's /clear of goose before the marker: the conversation replaced by nothing. */
  clearWithoutMarker(sessionId: string): void {
    this.replaceConversation(sessionId, []);
  }

  /** record_usage_metrics (v15+: carried-forward drift, the cache columns, a ledger row); before: the counters. */
  recordUsage(
    sessionId: string,
    u: {
      input: number;
      output: number;
      model?: string;
      cost?: number;
      compaction?: boolean;
      created?: number;
    },
  ): void {
    const total = u.input + u.output;
    this.db
      .transaction(() => {
        this.db
          .prepare(`UPDATE sessions SET total_tokens = ?, input_tokens = ?, output_tokens = ?,
            accumulated_total_tokens = COALESCE(accumulated_total_tokens, 0) + ?,
            accumulated_input_tokens = COALESCE(accumulated_input_tokens, 0) + ?,
            accumulated_output_tokens = COALESCE(accumulated_output_tokens, 0) + ?,
            updated_at = datetime('now') WHERE id = ?`)
          .run(total, u.input, u.output, total, u.input, u.output, sessionId);
        if (this.version >= 15) {
          this.db
            .prepare(`INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cost, cost_source, is_compaction)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
            .run(
              sessionId,
              u.created ?? Math.floor(Date.now() / 1000),
              u.model ?? "claude-sonnet-4-5",
              u.input,
              u.output,
              total,
              u.cost ?? null,
              u.cost === undefined ? null : "provider_reported",
              u.compaction ? 1 : 0,
            );
        }
      })
      .immediate();
  }

  close(): void {
    this.db.close();
  }

  private insert(sessionId: string, m: Msg): void {
    const cols = ["session_id", "role", "content_json", "created_timestamp"];
    const vals: unknown[] = [sessionId, m.role, JSON.stringify(m.content), m.created];
    if (this.has("messages", "metadata_json")) {
      cols.push("metadata_json");
      vals.push(JSON.stringify(m.metadata));
    }
    if (this.has("messages", "message_id")) {
      cols.push("message_id");
      vals.push(m.id ?? `msg_${sessionId}_${randomUUID()}`);
    }
    this.db
      .prepare(
        `INSERT INTO messages (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`,
      )
      .run(...vals);
  }
}

/** goose's `apply_migration(version)`, each as goose runs it. */
function migrate(db: Database.Database, version: number): void {
  const addColumn = (table: string, column: string, type: string) => {
    const has =
      (
        db
          .prepare("SELECT COUNT(*) AS n FROM pragma_table_info(?) WHERE name = ?")
          .get(table, column) as { n: number }
      ).n > 0;
    if (!has) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
  };
  switch (version) {
    case 1:
      db.exec(
        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)",
      );
      return;
    case 2:
      db.exec("ALTER TABLE sessions ADD COLUMN user_recipe_values_json TEXT");
      return;
    case 3:
      db.exec("ALTER TABLE messages ADD COLUMN metadata_json TEXT");
      return;
    case 4:
      db.exec("ALTER TABLE sessions ADD COLUMN name TEXT DEFAULT ''");
      db.exec("ALTER TABLE sessions ADD COLUMN user_set_name BOOLEAN DEFAULT FALSE");
      return;
    case 5:
      db.exec("ALTER TABLE sessions ADD COLUMN session_type TEXT NOT NULL DEFAULT 'user'");
      db.exec("CREATE INDEX idx_sessions_type ON sessions(session_type)");
      return;
    case 6:
      db.exec("ALTER TABLE sessions ADD COLUMN provider_name TEXT");
      db.exec("ALTER TABLE sessions ADD COLUMN model_config_json TEXT");
      return;
    case 7:
      db.exec("ALTER TABLE messages ADD COLUMN message_id TEXT");
      db.exec("UPDATE messages SET message_id = 'msg_' || session_id || '_' || id");
      db.exec("CREATE INDEX idx_messages_message_id ON messages(message_id)");
      return;
    case 8:
      db.exec("ALTER TABLE sessions ADD COLUMN goose_mode TEXT NOT NULL DEFAULT 'auto'");
      return;
    case 9:
      db.exec(
        "UPDATE sessions SET session_type = 'acp' WHERE session_type = 'user' AND name = 'ACP Session' AND user_set_name = FALSE",
      );
      return;
    case 10:
      addColumn("sessions", "thread_id", "TEXT");
      db.exec(`CREATE INDEX IF NOT EXISTS idx_sessions_thread ON sessions(thread_id);
        CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT 'New Chat', user_set_name BOOLEAN DEFAULT FALSE,
          working_dir TEXT, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
          archived_at TIMESTAMP, metadata_json TEXT DEFAULT '{}');
        CREATE TABLE IF NOT EXISTS thread_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, thread_id TEXT NOT NULL REFERENCES threads(id),
          session_id TEXT, message_id TEXT, role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
          metadata_json TEXT DEFAULT '{}');
        CREATE INDEX IF NOT EXISTS idx_thread_messages_thread ON thread_messages(thread_id);
        CREATE INDEX IF NOT EXISTS idx_thread_messages_message_id ON thread_messages(message_id);`);
      return;
    case 11:
      db.exec(`CREATE TABLE IF NOT EXISTS provider_inventory_entries (inventory_key TEXT PRIMARY KEY, provider_id TEXT NOT NULL,
          provider_family TEXT NOT NULL, last_updated_at TEXT, last_refresh_attempt_at TEXT, last_refresh_error TEXT,
          created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
        CREATE TABLE IF NOT EXISTS provider_inventory_models (inventory_key TEXT NOT NULL REFERENCES provider_inventory_entries(inventory_key) ON DELETE CASCADE,
          ordinal INTEGER NOT NULL, model_id TEXT NOT NULL, name TEXT NOT NULL, family TEXT, context_limit INTEGER, reasoning BOOLEAN,
          recommended BOOLEAN, PRIMARY KEY (inventory_key, ordinal));
        CREATE INDEX IF NOT EXISTS idx_provider_inventory_provider_id ON provider_inventory_entries(provider_id);`);
      return;
    case 12:
      addColumn("sessions", "archived_at", "TIMESTAMP");
      addColumn("sessions", "project_id", "TEXT");
      return;
    case 13:
      addColumn("sessions", "accumulated_cost", "REAL");
      return;
    case 14:
      for (const c of [
        "cache_read_tokens",
        "cache_write_tokens",
        "accumulated_cache_read_tokens",
        "accumulated_cache_write_tokens",
      ])
        addColumn("sessions", c, "INTEGER");
      return;
    case 15:
      addColumn("sessions", "parent_session_id", "TEXT");
      db.exec(`CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id);
        CREATE TABLE IF NOT EXISTS usage_ledger (id INTEGER PRIMARY KEY AUTOINCREMENT,
          session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, created_timestamp INTEGER NOT NULL, model TEXT,
          input_tokens INTEGER, output_tokens INTEGER, total_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER,
          cost REAL, cost_source TEXT, is_compaction INTEGER DEFAULT 0);
        CREATE INDEX IF NOT EXISTS idx_usage_ledger_session ON usage_ledger(session_id);`);
      return;
    case 16:
      db.exec(
        "CREATE INDEX IF NOT EXISTS idx_messages_session_created ON messages(session_id, created_timestamp, id)",
      );
      return;
    default:
      throw new Error(`goose has no migration v${version}`);
  }
}
