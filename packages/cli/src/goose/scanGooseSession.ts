import { createHash } from "node:crypto";
import { type GooseBlock, readBlock, type ToolCall, type ToolResult } from "./gooseContent.js";
import { type EnableMatcher, isEnableRequest } from "./gooseDeferral.js";
import { mapOutcome } from "./gooseOutcome.js";
import type { GooseSession } from "./gooseSession.js";
import { splitToolName } from "./gooseToolName.js";

/** One tool request of the session with its response (paired by id, C4). */
export interface GooseCall {
  key: string;
  id: string;
  call: ToolCall;
  name: string;
  owner: string | null;
  tool: string;
  at: string;
  created: number;
  response: { result: ToolResult; at: string; created: number } | null;
  enable: boolean;
  manage: { action: "enable" | "disable"; extension: string } | null;
}

/** What happened in the session, in order: the parts that become conversation facts. */
export type GooseEntry =
  | { kind: "request"; call: GooseCall }
  | { kind: "response"; call: GooseCall }
  | { kind: "compaction"; key: string; at: string; manual: boolean; note: string }
  | { kind: "clear"; key: string; at: string };

/**
 * The session's messages read once: its tool calls paired with their responses, and the
 * entries (requests, responses, compactions, clears) in order. Unknown content is counted
 * in `skipped` by type.
 */
export function scanGooseSession(
  session: GooseSession,
  matcher: EnableMatcher,
  skipped: Record<string, number>,
): { calls: GooseCall[]; entries: GooseEntry[] } {
  const calls: GooseCall[] = [];
  const entries: GooseEntry[] = [];
  const seen = new Map<string, number>();
  const count = (type: string) => {
    skipped[type] = (skipped[type] ?? 0) + 1;
  };
  session.messages.forEach((m, mi) => {
    const at = iso(m.created);
    const blocks: GooseBlock[] = m.content.map(readBlock);
    for (const b of blocks) {
      if (b.kind === "skipped") count(b.type);
      else if (b.kind === "toolRequest") {
        // A frontend request repeats the request of the same id (agents/tool_execution.rs).
        if (b.frontend && calls.some((c) => c.id === b.id && c.response === null)) continue;
        const base = `${b.id}@${m.created}`;
        const n = (seen.get(base) ?? 0) + 1;
        seen.set(base, n);
        const name = b.call.ok ? b.call.name : "";
        const split = b.call.ok ? splitToolName(name, b.call.meta) : { owner: null, tool: "" };
        const call: GooseCall = {
          key: n === 1 ? base : `${base}#${n}`,
          id: b.id,
          call: b.call,
          name,
          owner: split.owner,
          tool: split.tool,
          at,
          created: m.created,
          response: null,
          enable: b.call.ok && isEnableRequest(matcher, name),
          manage: b.call.ok ? manageOf(split.owner, split.tool, b.call.arguments) : null,
        };
        calls.push(call);
        entries.push({ kind: "request", call });
      } else if (b.kind === "toolResponse") {
        const call = [...calls].reverse().find((c) => c.id === b.id && c.response === null);
        if (!call) {
          count("toolResponse without its toolRequest");
          continue;
        }
        call.response = { result: b.result, at, created: m.created };
        entries.push({ kind: "response", call });
      } else if (b.kind === "conversationCompacted") {
        entries.push({
          kind: "compaction",
          key: `compact:${m.created}:${digest(b.msg)}`,
          at,
          manual: false,
          note: "goose before 1.14 marked a compaction with a conversationCompacted block",
        });
      } else if (
        b.kind === "systemNotification" &&
        m.role === "assistant" &&
        b.msg === "Conversation cleared"
      ) {
        entries.push({ kind: "clear", key: `clear:${m.created}:${m.messageId ?? mi}`, at });
      } else if (
        b.kind === "text" &&
        m.role === "assistant" &&
        // A later compaction makes it agent-invisible too: it stays where it was.
        !m.userVisible &&
        b.text.startsWith("Your context was compacted")
      ) {
        // context_mgmt/mod.rs compact_messages: the summary (agent-only), then this continuation.
        const summary = session.messages[mi - 1];
        const summaryText = summary
          ? summary.content
              .map(readBlock)
              .map((x) => (x.kind === "text" ? x.text : ""))
              .join("\n")
          : "";
        const manual = b.text.includes("at the user's request");
        entries.push({
          kind: "compaction",
          key: `compact:${m.created}:${digest(summaryText + b.text)}`,
          at,
          manual,
          note: manual
            ? "goose's /compact: the summary and `Your context was compacted at the user's request`; earlier messages kept, agent-invisible"
            : "goose's automatic compaction: the summary and `Your context was compacted`; earlier messages kept, agent-invisible",
        });
      }
    }
  });
  return { calls, entries };
}

/** agents/extension_manager_extension.rs: `manage_extensions { action, extension_name }` (platform__manage_extensions before). */
function manageOf(owner: string | null, tool: string, args: unknown): GooseCall["manage"] {
  if (tool !== "manage_extensions" || (owner !== "extensionmanager" && owner !== "platform"))
    return null;
  const a = args && typeof args === "object" ? (args as Record<string, unknown>) : {};
  if ((a.action !== "enable" && a.action !== "disable") || typeof a.extension_name !== "string")
    return null;
  return { action: a.action, extension: a.extension_name };
}

/** The call ran and said it did (`… has been installed successfully` / `… disabled successfully`). */
export function succeeded(c: GooseCall): boolean {
  const r = c.response?.result;
  return !!r && r.ok && !r.isError && /successfully/.test(r.text);
}

/** The raw tool names the session called, by owner, of calls goose got to run (or ask about). */
export function toolsUsed(calls: readonly GooseCall[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const c of calls) {
    if (!c.call.ok || c.owner === null) continue;
    const outcome = c.response ? mapOutcome(c.call, c.response.result) : null;
    if (outcome && outcome.reason === "UNKNOWN_TOOL") continue;
    const set = out.get(c.owner) ?? new Set<string>();
    set.add(c.tool);
    out.set(c.owner, set);
  }
  return out;
}

export function iso(seconds: number): string {
  const ms = seconds * 1000;
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15
    ? new Date(ms).toISOString()
    : new Date(0).toISOString();
}

export function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}
