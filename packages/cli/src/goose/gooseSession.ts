/**
 * One goose session as read from any of its stores, in the shape goose's own `Session` has
 * (block/goose `crates/goose/src/session/session_manager.rs`, `model.rs`). The readers fill
 * what their source holds and leave the rest null.
 */
export interface GooseSession {
  id: string;
  format: "sqlite" | "export" | "jsonl";
  /** The file it was read from. */
  path: string;
  /** sessions.db's `MAX(version) FROM schema_version` (0 before that table existed, v1). */
  schemaVersion: number | null;
  name: string | null;
  workingDir: string | null;
  /** `user`, `scheduled`, `sub_agent`, `hidden`, `terminal`, `gateway`, `acp` (goose's SessionType). */
  sessionType: string | null;
  /** v15+: `parent_session_id`; before, read from a sub-agent's name (see parentOf). */
  parentSessionId: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  /** `extension_data` JSON: `{"enabled_extensions.v0": {"extensions": [ExtensionConfig…]}, …}`. */
  extensionData: Record<string, unknown>;
  /** The session row's token counters: the latest turn and the running totals. */
  tokens: GooseTokens;
  /** v15+: the `usage_ledger` rows, oldest first. */
  usageLedger: GooseLedgerRow[] | null;
  messages: GooseMessage[];
}

export interface GooseTokens {
  input: number | null;
  output: number | null;
  total: number | null;
  accumulatedInput: number | null;
  accumulatedOutput: number | null;
  accumulatedTotal: number | null;
  accumulatedCost: number | null;
}

export interface GooseLedgerRow {
  id: number;
  createdTimestamp: number;
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  totalTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  cost: number | null;
  costSource: string | null;
  isCompaction: boolean;
}

/** goose's `Message` (`conversation/message.rs`, `#[serde(rename_all = "camelCase")]`). */
export interface GooseMessage {
  /** v7+: `messages.message_id` (kept across goose's rewrites); null before. */
  messageId: string | null;
  role: string;
  /** Seconds since the epoch (goose: `Utc::now().timestamp()`). */
  created: number;
  /** Content blocks as stored, each `{ "type": …, … }`; read by `readContent`. */
  content: unknown[];
  /** `MessageMetadata` (v3+); both true when absent (goose's Default). */
  userVisible: boolean;
  agentVisible: boolean;
  /** Where it sits in the source: row id or line, for messages. */
  place: string;
}

export const EMPTY_TOKENS: GooseTokens = {
  input: null,
  output: null,
  total: null,
  accumulatedInput: null,
  accumulatedOutput: null,
  accumulatedTotal: null,
  accumulatedCost: null,
};

/** goose's `MessageMetadata` default when the field is missing: visible to both (message.rs). */
export function readVisibility(metadata: unknown): { userVisible: boolean; agentVisible: boolean } {
  const m = metadata && typeof metadata === "object" ? (metadata as Record<string, unknown>) : {};
  return {
    userVisible: typeof m.userVisible === "boolean" ? m.userVisible : true,
    agentVisible: typeof m.agentVisible === "boolean" ? m.agentVisible : true,
  };
}

/**
 * A sub-agent's parent. goose v15+ stores it (`parent_session_id`); before that, goose named a
 * sub-agent's session `Subagent task for: <parent id>` (agents/subagent_handler.rs).
 */
export function parentOf(session: Pick<GooseSession, "parentSessionId" | "name">): {
  id: string | null;
  inferred: boolean;
} {
  if (session.parentSessionId) return { id: session.parentSessionId, inferred: false };
  const m = /^Subagent task for: (.+)$/.exec(session.name ?? "");
  return m ? { id: m[1]!.trim(), inferred: true } : { id: null, inferred: false };
}

export function num(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "bigint") return Number(v);
  return null;
}

export function str(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}
