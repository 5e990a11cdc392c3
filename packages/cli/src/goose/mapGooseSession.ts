import { createHash } from "node:crypto";
import {
  decide,
  getExtension,
  listExtensions,
  type McpTool,
  nameToKey,
  resolveTool,
  type State,
} from "@toolledger/core";
import { type GooseBlock, readBlock, type ToolCall, type ToolResult } from "./gooseContent.js";
import {
  type EnableMatcher,
  isEnableRequest,
  loadedNames,
  requestedNames,
} from "./gooseDeferral.js";
import { enabledExtensions, type GooseExtension, unlistedExtension } from "./gooseExtensions.js";
import type { BuildContext, Fact } from "./gooseFact.js";
import { mapOutcome } from "./gooseOutcome.js";
import { type GooseSession, parentOf } from "./gooseSession.js";
import { GOOSE_PLATFORM_EXTENSIONS, splitToolName } from "./gooseToolName.js";

const v = 1 as const;

export interface MapOptions {
  conversation: string;
  registry: string;
  /** The conversation a sub-agent's parent was (or will be) imported as. */
  parentConversation: string | null;
  matcher: EnableMatcher;
  /** Tool lists from goose's request logs (`--request-log`), by extension key. */
  loggedTools: ReadonlyMap<string, readonly McpTool[]>;
  hostname: string;
  toolledgerVersion: string;
}

export interface MappedSession {
  facts: Fact[];
  /** Content blocks skipped, by type (unknown or legacy content, never a failure). */
  skipped: Record<string, number>;
  notes: string[];
}

/** One tool request of the session with its response (paired by id, C4). */
interface Call {
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

type Entry =
  | { kind: "request"; call: Call }
  | { kind: "response"; call: Call }
  | { kind: "compaction"; key: string; at: string; manual: boolean; note: string }
  | { kind: "clear"; key: string; at: string };

/**
 * A goose session as facts, in order (the mapping of issue 26). Citations are to block/goose.
 */
export function mapGooseSession(session: GooseSession, options: MapOptions): MappedSession {
  const skipped: Record<string, number> = {};
  const notes: string[] = [];
  const { calls, entries } = scan(session, options.matcher, skipped);

  // --- extensions: the snapshot, walked back over the session's own enables and disables.
  const snapshot = enabledExtensions(session.extensionData);
  const managed = calls.filter((c) => c.manage && succeeded(c));
  const initial = new Map(snapshot.map((e) => [e.key, e]));
  const configs = new Map(snapshot.map((e) => [e.key, e]));
  for (const c of [...managed].reverse()) {
    const key = nameToKey(c.manage!.extension);
    if (c.manage!.action === "enable") initial.delete(key);
    else initial.set(key, configs.get(key) ?? unlistedExtension(key, kindFor(key)));
  }
  // Owners whose tools ran but that neither the snapshot nor an enable names.
  const used = toolsUsed(calls);
  const managedKeys = new Set(managed.map((c) => nameToKey(c.manage!.extension)));
  for (const owner of used.keys()) {
    if (!initial.has(owner) && !managedKeys.has(owner))
      initial.set(owner, unlistedExtension(owner, kindFor(owner)));
  }
  const firstAt =
    session.createdAt ??
    (session.messages[0] ? iso(session.messages[0].created) : new Date(0).toISOString());
  const facts: Fact[] = [];

  facts.push({
    key: "host",
    stream: "registry",
    kind: "inferred",
    note: "goose records no host run; this stream holds the session's extensions and tool lists",
    build: () => ({
      type: "HostStarted",
      v,
      at: firstAt,
      hostname: options.hostname,
      toolledgerVersion: options.toolledgerVersion,
    }),
  });
  facts.push({
    key: "start",
    stream: "conversation",
    kind: "inferred",
    note: "the session's creation time; goose is the client",
    build: () => ({
      type: "ConversationStarted",
      v,
      at: firstAt,
      registryStream: options.registry,
      client: {
        name: "goose",
        version:
          session.schemaVersion === null ? session.format : `sessions.db v${session.schemaVersion}`,
      },
      protocolVersion: null,
      transport: "import",
      hostname: null,
    }),
  });
  const parent = parentOf(session);
  const noMarker =
    session.format === "jsonl" || (session.schemaVersion !== null && session.schemaVersion < 7);
  if (noMarker)
    notes.push(
      "goose of this format kept no marker of /clear: a conversation cleared before this import shows only what came after",
    );
  if (parent.inferred)
    notes.push(
      `the parent session is read from the sub-agent's name (goose before parent_session_id)`,
    );
  facts.push({
    key: "imported",
    stream: "conversation",
    kind: "exact",
    build: () => ({
      type: "SessionImported",
      v,
      at: firstAt,
      host: "goose",
      format: session.format,
      sourceSession: session.id,
      sourcePath: session.path,
      schemaVersion: session.schemaVersion,
      name: session.name,
      workingDir: session.workingDir,
      sessionType: session.sessionType,
      parentSourceSession: parent.id,
      parentConversation: parent.id === null ? null : options.parentConversation,
      notes: [...notes, ...skippedNotes(skipped)],
    }),
  });
  for (const ext of initial.values()) {
    const inSnapshot = configs.has(ext.key);
    facts.push(
      extensionAdded(
        ext,
        firstAt,
        inSnapshot ? "inferred" : "synthetic",
        inSnapshot
          ? "from the session's enabled-extensions state (a snapshot: when it was enabled is not recorded)"
          : "the session called its tools, but its enabled-extensions state does not list it",
      ),
    );
  }
  for (const ext of initial.values())
    facts.push(toolsFetched(ext.key, firstAt, used, options.loggedTools));
  // After the tools: the always-load list names the builtin extensions' tools, read off the state.
  const deferred = calls.some((c) => c.enable);
  if (deferred) {
    facts.push({
      key: "deferral",
      stream: "conversation",
      kind: "inferred",
      note: "the session made deferred-loading requests, so deferral was on; builtin extensions stay eager as in goose",
      build: (ctx) => ({
        type: "DeferralConfigured",
        v,
        at: firstAt,
        mode: "lookup",
        alwaysLoad: builtinToolNames(ctx.state, [...initial.values(), ...configs.values()]),
      }),
    });
  }

  // --- the conversation, in order.
  const ledger = [...(session.usageLedger ?? [])];
  const pushUsageUpTo = (created: number) => {
    while (ledger.length > 0 && ledger[0]!.createdTimestamp <= created)
      facts.push(usageFact(ledger.shift()!));
  };
  for (const entry of entries) {
    const at =
      entry.kind === "request"
        ? entry.call.at
        : entry.kind === "response"
          ? entry.call.response!.at
          : entry.at;
    pushUsageUpTo(Date.parse(at) / 1000 - 1);
    switch (entry.kind) {
      case "request":
        facts.push(callStarted(entry.call));
        if (
          entry.call.enable &&
          ((entry.call.call.ok && requestedNames(entry.call.call.arguments).names.length > 0) ||
            !entry.call.response)
        )
          facts.push(enableRequested(entry.call));
        break;
      case "response": {
        const c = entry.call;
        if (c.manage && succeeded(c)) {
          const key = nameToKey(c.manage.extension);
          if (c.manage.action === "enable") {
            const ext = configs.get(key) ?? unlistedExtension(key, kindFor(key));
            facts.push(
              extensionAdded(
                ext,
                c.response!.at,
                "exact",
                configs.has(key)
                  ? undefined
                  : "enabled by the extension manager; its config is not in the session's state",
                `manage:${c.key}`,
              ),
            );
            facts.push(
              toolsFetched(key, c.response!.at, used, options.loggedTools, `manage:${c.key}`),
            );
          } else {
            facts.push({
              key: `manage:${c.key}`,
              stream: "registry",
              kind: "exact",
              build: () => ({ type: "ExtensionRemoved", v, at: c.response!.at, extension: key }),
            });
          }
        }
        if (c.enable) {
          if (!(c.call.ok && requestedNames(c.call.arguments).names.length > 0))
            facts.push(enableRequested(c));
          facts.push(enableResponded(c));
        }
        facts.push(callFinished(c));
        break;
      }
      case "compaction":
        facts.push({
          key: entry.key,
          stream: "conversation",
          kind: "exact",
          note: entry.note,
          build: (ctx) => decided(ctx.state, { type: "Compact", at: entry.at }),
        });
        break;
      case "clear":
        facts.push({
          key: entry.key,
          stream: "conversation",
          kind: "exact",
          note: "goose's /clear: the `/clear` command and its `Conversation cleared` notification",
          build: (ctx) => decided(ctx.state, { type: "Clear", at: entry.at }),
        });
        break;
    }
  }
  pushUsageUpTo(Number.POSITIVE_INFINITY);
  if (session.usageLedger === null) {
    const t = session.tokens;
    if (t.accumulatedTotal !== null || t.total !== null) {
      facts.push({
        key: `usage-session:${t.accumulatedTotal ?? "-"}:${t.accumulatedInput ?? "-"}:${t.accumulatedOutput ?? "-"}:${t.total ?? "-"}`,
        stream: "conversation",
        kind: "inferred",
        note: "goose before its usage ledger kept only the latest turn's counts and running totals; this is the latest turn as of this import",
        build: () => ({
          type: "UsageRecorded",
          v,
          at: session.updatedAt ?? firstAt,
          model: null,
          inputTokens: t.input,
          outputTokens: t.output,
          totalTokens: t.total,
          cost: null,
          costSource: null,
          compaction: false,
        }),
      });
    }
  }
  return { facts, skipped, notes };

  function extensionAdded(
    ext: GooseExtension,
    at: string,
    kind: Fact["kind"],
    note: string | undefined,
    key = `ext:${ext.key}`,
  ): Fact {
    return {
      key,
      stream: "registry",
      kind,
      ...(note === undefined ? {} : { note }),
      build: () => ({
        type: "ExtensionAdded",
        v,
        at,
        name: ext.name,
        kind: ext.kind,
        exposeUnprefixed: false,
        hidden: false,
        availableTools: ext.availableTools,
        configFingerprint: ext.configFingerprint,
      }),
    };
  }

  function callStarted(c: Call): Fact {
    return {
      key: `call:${c.key}`,
      stream: "conversation",
      kind: "exact",
      build: (ctx) => {
        let callId = c.id;
        for (let n = 2; ctx.callIds.has(callId); n++) callId = `${c.id}~${n}`;
        const resolved = c.call.ok ? resolveTool(ctx.state, c.name) : null;
        return {
          type: "ToolCallStarted",
          v,
          at: c.at,
          callId,
          name: c.name,
          publicName: resolved?.ok ? resolved.publicName : null,
          owner: resolved?.ok ? resolved.extension : null,
          rawName: resolved?.ok ? resolved.rawName : null,
        };
      },
    };
  }

  function callFinished(c: Call): Fact {
    const mapped = mapOutcome(c.call, c.response!.result);
    return {
      key: `finish:${c.key}`,
      stream: "conversation",
      kind: "exact",
      note: "the outcome is goose's; the duration is read from message times (whole seconds)",
      build: (ctx) => {
        const callId = callIdOf(ctx, c);
        if (callId === null) return null;
        return {
          type: "ToolCallFinished",
          v,
          at: c.response!.at,
          callId,
          outcome: mapped.outcome,
          durationMs: Math.max(0, (c.response!.created - c.created) * 1000),
          reason: mapped.reason,
          error: mapped.error,
        };
      },
    };
  }

  function enableRequested(c: Call): Fact {
    const asked = c.call.ok ? requestedNames(c.call.arguments) : { names: [], query: null };
    const loaded = c.response?.result.ok ? loadedNames(c.response.result.text) : [];
    const exact = loaded.length === 0 || sameSet(asked.names, loaded);
    return {
      key: `enable-req:${c.key}`,
      stream: "conversation",
      kind: exact && asked.names.length > 0 ? "exact" : "inferred",
      ...(exact && asked.names.length > 0
        ? {}
        : {
            note: "the names goose's answer loaded (the request named others, or asked by query)",
          }),
      build: (ctx) => {
        const callId = callIdOf(ctx, c);
        if (callId === null) return null;
        const names = (loaded.length > 0 ? loaded : asked.names).map((n) =>
          publicNameFor(ctx.state, n),
        );
        return { type: "EnableToolsRequested", v, at: c.at, callId, names };
      },
    };
  }

  function enableResponded(c: Call): Fact {
    const r = c.response!.result;
    const ok = r.ok && !r.isError;
    return {
      key: `enable-resp:${c.key}`,
      stream: "conversation",
      kind: "exact",
      build: (ctx) => {
        const callId = callIdOf(ctx, c);
        if (callId === null) return null;
        return ok
          ? { type: "EnableToolsResponded", v, at: c.response!.at, callId, ok: true }
          : {
              type: "EnableToolsResponded",
              v,
              at: c.response!.at,
              callId,
              ok: false,
              error: { code: "GOOSE_ERROR", message: r.ok ? r.text : r.error, invalid: [] },
            };
      },
    };
  }

  function usageFact(row: NonNullable<GooseSession["usageLedger"]>[number]): Fact {
    const carried = row.costSource === "carried_forward";
    return {
      key: `usage:${row.id}`,
      stream: "conversation",
      kind: carried ? "inferred" : "exact",
      ...(carried
        ? { note: "goose's carried_forward row: spend recorded before its usage ledger existed" }
        : {}),
      build: () => ({
        type: "UsageRecorded",
        v,
        at: iso(row.createdTimestamp),
        model: row.model,
        inputTokens: row.inputTokens,
        outputTokens: row.outputTokens,
        totalTokens: row.totalTokens,
        cacheReadTokens: row.cacheReadTokens,
        cacheWriteTokens: row.cacheWriteTokens,
        cost: row.cost,
        costSource: row.costSource,
        compaction: row.isCompaction,
      }),
    };
  }

  function toolsFetched(
    key: string,
    at: string,
    usedTools: ReadonlyMap<string, ReadonlySet<string>>,
    logged: ReadonlyMap<string, readonly McpTool[]>,
    keyPrefix = "tools",
  ): Fact {
    const fromLog = logged.get(key) ?? [];
    const names = [...(usedTools.get(key) ?? [])]
      .filter((n) => !fromLog.some((t) => t.name === n))
      .sort();
    const tools: McpTool[] = [
      ...fromLog,
      ...names.map((name) => ({
        name,
        description:
          "(synthesised by toolledger: goose does not store tool lists; this session called it)",
        inputSchema: { type: "object" },
      })),
    ];
    const kind: Fact["kind"] = names.length === 0 && fromLog.length > 0 ? "inferred" : "synthetic";
    return {
      key: `${keyPrefix}:${key}:${digest(tools.map((t) => t.name).join("\n"))}`,
      stream: "registry",
      kind,
      note:
        kind === "inferred"
          ? "the tools goose sent the model, from its request log"
          : "goose does not store tool lists: the tools this session called" +
            (fromLog.length > 0 ? ", with those of its request log" : ""),
      build: (ctx) =>
        tools.length === 0 || !hasExtension(ctx.state, key)
          ? null
          : {
              type: "ToolsFetched",
              v,
              at,
              extension: key,
              startedAtVersion: ctx.state.version,
              tools,
            },
    };
  }
}

function scan(session: GooseSession, matcher: EnableMatcher, skipped: Record<string, number>) {
  const calls: Call[] = [];
  const entries: Entry[] = [];
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
        const call: Call = {
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
function manageOf(owner: string | null, tool: string, args: unknown): Call["manage"] {
  if (tool !== "manage_extensions" || (owner !== "extensionmanager" && owner !== "platform"))
    return null;
  const a = args && typeof args === "object" ? (args as Record<string, unknown>) : {};
  if ((a.action !== "enable" && a.action !== "disable") || typeof a.extension_name !== "string")
    return null;
  return { action: a.action, extension: a.extension_name };
}

/** The call ran and said it did (`… has been installed successfully` / `… disabled successfully`). */
function succeeded(c: Call): boolean {
  const r = c.response?.result;
  return !!r && r.ok && !r.isError && /successfully/.test(r.text);
}

/** The raw tool names the session called, by owner, of calls goose got to run (or ask about). */
function toolsUsed(calls: readonly Call[]): Map<string, Set<string>> {
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

function kindFor(key: string): string {
  return GOOSE_PLATFORM_EXTENSIONS.has(key) ? "platform" : "unknown";
}

function builtinToolNames(state: State, exts: readonly GooseExtension[]): string[] {
  const builtin = new Set(exts.filter((e) => e.kind === "builtin").map((e) => e.key));
  const names: string[] = [];
  for (const key of builtin) {
    const ext = getExtension(state, key);
    for (const t of ext?.tools ?? []) names.push(t.publicName);
  }
  return names.sort();
}

function hasExtension(state: State, key: string): boolean {
  return getExtension(state, key) !== undefined;
}

function publicNameFor(state: State, name: string): string {
  const r = resolveTool(state, name);
  if (r.ok) return r.publicName;
  // goose's load_tools also takes the name after the prefix (tool_deferral.rs `find`).
  for (const ext of listExtensions(state))
    for (const t of ext.tools) if (t.rawName === name) return t.publicName;
  return name;
}

function callIdOf(ctx: BuildContext, c: Call): string | null {
  const e = ctx.byKey.get(`call:${c.key}`) as { callId?: unknown } | undefined;
  return typeof e?.callId === "string" ? e.callId : null;
}

function decided(state: State, command: { type: "Compact" | "Clear"; at: string }) {
  const d = decide(state, command);
  return d.ok ? (d.events[0] ?? null) : null;
}

function skippedNotes(skipped: Record<string, number>): string[] {
  return Object.entries(skipped).map(
    ([type, n]) => `skipped ${n} content block${n === 1 ? "" : "s"} of type ${type}`,
  );
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const bare = (x: string) => (x.includes("__") ? x.slice(x.indexOf("__") + 2) : x);
  const norm = (xs: readonly string[]) => [...new Set(xs.map(bare))].sort().join("\n");
  return norm(a) === norm(b);
}

export function iso(seconds: number): string {
  const ms = seconds * 1000;
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15
    ? new Date(ms).toISOString()
    : new Date(0).toISOString();
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}
