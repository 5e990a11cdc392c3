/**
 * goose's `MessageContent` blocks (block/goose `crates/goose/src/conversation/message.rs`,
 * `#[serde(tag = "type", rename_all = "camelCase")]`), read leniently: what the importer maps,
 * what it knows and passes over, and what it skips and counts (unknown or legacy blocks).
 */
export type GooseBlock =
  | { kind: "text"; text: string }
  | { kind: "toolRequest"; id: string; call: ToolCall; frontend: boolean }
  | { kind: "toolResponse"; id: string; result: ToolResult }
  | { kind: "systemNotification"; notificationType: string | null; msg: string }
  /** Pre-14.0 goose wrote a `conversationCompacted { msg }` block where it compacted. */
  | { kind: "conversationCompacted"; msg: string }
  /** Known content with nothing for the ledger (images, thinking, confirmations, …). */
  | { kind: "other"; type: string }
  /** Skipped and counted: a type goose never wrote, or one it stopped writing. */
  | { kind: "skipped"; type: string; legacy: boolean };

/**
 * `toolCall` of a `toolRequest` (`tool_result_serde`: `{status: "success", value:
 * CallToolRequestParam}` or `{status: "error", error: "<code>: <message>"}`, the model's
 * malformed call).
 */
export type ToolCall =
  | { ok: true; name: string; arguments: unknown; meta: Record<string, unknown> | null }
  | { ok: false; error: string };

/**
 * `toolResult` of a `toolResponse`: `{status: "success", value: CallToolResult}` (or, before,
 * `value: Content[]`; `tool_result_serde::call_tool_result`), or `{status: "error", error}`.
 */
export type ToolResult =
  | { ok: true; isError: boolean; text: string; structured: boolean }
  | { ok: false; error: string };

/** Types goose's `MessageContent` has had that carry nothing for the ledger. */
const OTHER_TYPES = new Set([
  "image",
  "thinking",
  "redactedThinking",
  "reasoning",
  "toolConfirmationRequest",
  "actionRequired",
  "toolInputDelta",
]);
/** Types older goose releases wrote and the current one drops or never reads back. */
const LEGACY_TYPES = new Set(["summarizationRequested", "contextLengthExceeded"]);

export function readBlock(raw: unknown): GooseBlock {
  if (!raw || typeof raw !== "object" || Array.isArray(raw))
    return { kind: "skipped", type: "(not an object)", legacy: false };
  const b = raw as Record<string, unknown>;
  const type = typeof b.type === "string" ? b.type : "(no type)";
  switch (type) {
    case "text":
      return typeof b.text === "string"
        ? { kind: "text", text: b.text }
        : { kind: "skipped", type, legacy: false };
    case "toolRequest":
    case "frontendToolRequest": {
      if (typeof b.id !== "string") return { kind: "skipped", type, legacy: false };
      const call = readToolCall(b.toolCall);
      return call
        ? { kind: "toolRequest", id: b.id, call, frontend: type === "frontendToolRequest" }
        : { kind: "skipped", type, legacy: false };
    }
    case "toolResponse": {
      if (typeof b.id !== "string") return { kind: "skipped", type, legacy: false };
      const result = readToolResult(b.toolResult);
      return result
        ? { kind: "toolResponse", id: b.id, result }
        : { kind: "skipped", type, legacy: false };
    }
    case "systemNotification":
      return typeof b.msg === "string"
        ? {
            kind: "systemNotification",
            notificationType: typeof b.notificationType === "string" ? b.notificationType : null,
            msg: b.msg,
          }
        : { kind: "skipped", type, legacy: false };
    case "conversationCompacted":
      return { kind: "conversationCompacted", msg: typeof b.msg === "string" ? b.msg : "" };
    default:
      if (OTHER_TYPES.has(type)) return { kind: "other", type };
      return { kind: "skipped", type, legacy: LEGACY_TYPES.has(type) };
  }
}

function readToolCall(raw: unknown): ToolCall | null {
  if (!raw || typeof raw !== "object") return null;
  const r = raw as Record<string, unknown>;
  if (r.status === "error") return { ok: false, error: typeof r.error === "string" ? r.error : "" };
  if (r.status !== "success" || !r.value || typeof r.value !== "object") return null;
  const v = r.value as Record<string, unknown>;
  if (typeof v.name !== "string") return null;
  const meta = v._meta && typeof v._meta === "object" ? (v._meta as Record<string, unknown>) : null;
  return { ok: true, name: v.name, arguments: v.arguments ?? null, meta };
}

function readToolResult(raw: unknown): ToolResult | null {
  if (!raw || typeof raw !== "object") return null;
  const r = raw as Record<string, unknown>;
  if (r.status === "error") return { ok: false, error: typeof r.error === "string" ? r.error : "" };
  if (r.status !== "success") return null;
  // Legacy: `value` was the content list itself.
  const value = r.value;
  const content = Array.isArray(value)
    ? value
    : value && typeof value === "object" && Array.isArray((value as { content?: unknown }).content)
      ? ((value as { content: unknown[] }).content ?? [])
      : null;
  if (content === null) return null;
  const v = Array.isArray(value) ? {} : (value as Record<string, unknown>);
  const text = content
    .map((c) =>
      c && typeof c === "object" && typeof (c as { text?: unknown }).text === "string"
        ? (c as { text: string }).text
        : "",
    )
    .filter((t) => t !== "")
    .join("\n");
  return {
    ok: true,
    isError: v.isError === true,
    text,
    structured: v.structuredContent !== undefined,
  };
}
