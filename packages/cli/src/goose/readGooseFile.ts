import { readFileSync } from "node:fs";
import { basename } from "node:path";
import {
  EMPTY_TOKENS,
  type GooseMessage,
  type GooseSession,
  type GooseTokens,
  num,
  readVisibility,
  str,
} from "./gooseSession.js";
import { sqliteTime } from "./readGooseDatabase.js";

export class GooseFileError extends Error {
  override readonly name = "GooseFileError";
}

/**
 * A file goose wrote outside its database: `goose session export --format json` (one pretty
 * printed `Session`, block/goose session_manager.rs `export_session`), or a legacy session
 * file from before the SQLite store (one JSON line of `SessionMetadata`, then one `Message` per
 * line; session/storage.rs and session/legacy.rs). Which one is told from the content.
 */
export function readGooseFile(file: string): GooseSession {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new GooseFileError(`${file}: cannot read it: ${(error as Error).message}`);
  }
  const trimmed = text.trim();
  if (trimmed === "") throw new GooseFileError(`${file} is empty`);
  // An export is one JSON object over many lines; a legacy file is one object per line.
  try {
    const whole: unknown = JSON.parse(trimmed);
    if (whole && typeof whole === "object" && !Array.isArray(whole) && !trimmed.includes("\n{"))
      return readExport(file, whole as Record<string, unknown>);
  } catch {
    // not one JSON value: a JSONL file
  }
  return readLegacyJsonl(file, text);
}

function readExport(file: string, s: Record<string, unknown>): GooseSession {
  if (typeof s.id !== "string" || !Array.isArray(s.conversation ?? [])) {
    throw new GooseFileError(
      `${file} is JSON but not a goose session export (no string "id"; export one with \`goose session export --format json\`)`,
    );
  }
  const conversation = Array.isArray(s.conversation) ? s.conversation : [];
  return {
    id: s.id,
    format: "export",
    path: file,
    schemaVersion: null,
    // `#[serde(alias = "description")]` on Session::name.
    name: str(s.name) ?? str(s.description),
    workingDir: str(s.working_dir),
    sessionType: str(s.session_type) ?? "user",
    parentSessionId: str(s.parent_session_id),
    createdAt: sqliteTime(s.created_at),
    updatedAt: sqliteTime(s.updated_at),
    extensionData: objectOf(s.extension_data),
    tokens: readTokens(s),
    usageLedger: null,
    messages: conversation.map((m, i) => readMessage(m, `conversation[${i}]`)),
  };
}

function readLegacyJsonl(file: string, text: string): GooseSession {
  const lines = text.split("\n");
  const messages: GooseMessage[] = [];
  let metadata: Record<string, unknown> = {};
  let bad = 0;
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // legacy.rs skips a line it cannot parse; so do we, and count it.
      bad++;
      return;
    }
    const o = objectOf(value);
    // The first line is SessionMetadata when it parses as one (it has no `role`).
    if (i === 0 && typeof o.role !== "string") {
      metadata = o;
      return;
    }
    messages.push(readMessage(value, `line ${i + 1}`));
  });
  if (messages.length === 0 && Object.keys(metadata).length === 0) {
    throw new GooseFileError(
      `${file} holds no goose session (neither an export JSON nor a legacy JSONL session file)`,
    );
  }
  for (let i = 0; i < bad; i++)
    messages.push({
      messageId: null,
      role: "user",
      created: 0,
      content: [{ type: "(unparsable line)" }],
      userVisible: false,
      agentVisible: false,
      place: "an unparsable line",
    });
  return {
    id: basename(file).replace(/\.jsonl$/, ""),
    format: "jsonl",
    path: file,
    schemaVersion: null,
    name: str(metadata.description) ?? str(metadata.name),
    workingDir: str(metadata.working_dir),
    sessionType: "user",
    parentSessionId: null,
    createdAt: null,
    updatedAt: null,
    extensionData: objectOf(metadata.extension_data),
    tokens: readTokens(metadata),
    usageLedger: null,
    messages,
  };
}

function readMessage(value: unknown, place: string): GooseMessage {
  const m = objectOf(value);
  return {
    messageId: str(m.id),
    role: str(m.role) ?? "user",
    created: num(m.created) ?? 0,
    content: Array.isArray(m.content) ? m.content : [{ type: "(content not a list)" }],
    ...readVisibility(m.metadata),
    place,
  };
}

/** The flat counters of older Sessions and SessionMetadata, or the newer `usage` objects. */
function readTokens(s: Record<string, unknown>): GooseTokens {
  const usage = objectOf(s.usage);
  const acc = objectOf(s.accumulated_usage);
  return {
    ...EMPTY_TOKENS,
    input: num(s.input_tokens) ?? num(usage.input_tokens),
    output: num(s.output_tokens) ?? num(usage.output_tokens),
    total: num(s.total_tokens) ?? num(usage.total_tokens),
    accumulatedInput: num(s.accumulated_input_tokens) ?? num(acc.input_tokens),
    accumulatedOutput: num(s.accumulated_output_tokens) ?? num(acc.output_tokens),
    accumulatedTotal: num(s.accumulated_total_tokens) ?? num(acc.total_tokens),
    accumulatedCost: num(s.accumulated_cost),
  };
}

function objectOf(v: unknown): Record<string, unknown> {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
