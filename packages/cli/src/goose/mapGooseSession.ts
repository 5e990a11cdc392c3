import { decide, type McpTool, nameToKey, type State } from "@toolledger/core";
import { callFinished, callStarted, enableRequested, enableResponded } from "./gooseCallFacts.js";
import { type EnableMatcher, requestedNames } from "./gooseDeferral.js";
import type { Fact } from "./gooseFact.js";
import { gooseInitialExtensions } from "./gooseInitialExtensions.js";
import { builtinToolNames, extensionAdded, toolsFetched } from "./gooseRegistryFacts.js";
import { type GooseSession, parentOf } from "./gooseSession.js";
import { sessionTokensFact, usageFact } from "./gooseUsageFacts.js";
import { iso, scanGooseSession, succeeded } from "./scanGooseSession.js";

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

/**
 * A goose session as facts, in order (the mapping of issue 26). Citations are to block/goose.
 */
export function mapGooseSession(session: GooseSession, options: MapOptions): MappedSession {
  const skipped: Record<string, number> = {};
  const notes: string[] = [];
  const { calls, entries } = scanGooseSession(session, options.matcher, skipped);

  // --- extensions: the snapshot, walked back over the session's own enables and disables.
  const { initial, configs, used, unlisted } = gooseInitialExtensions(session, calls);
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
            const ext = configs.get(key) ?? unlisted(key);
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
  const tokens = sessionTokensFact(session, firstAt);
  if (tokens) facts.push(tokens);
  return { facts, skipped, notes };
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
