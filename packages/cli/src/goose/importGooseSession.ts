import {
  decodeEvent,
  type EventOrigin,
  type EventStore,
  evolve,
  initialState,
  readWholeStream,
  type State,
  type StoredEvent,
  type ToolledgerEvent,
  type ToolledgerEventInput,
} from "@toolledger/core";
import { newEventId } from "../session/newIds.js";
import type { BuildContext, Fact } from "./gooseFact.js";
import type { GooseSession } from "./gooseSession.js";
import { type MapOptions, mapGooseSession } from "./mapGooseSession.js";

export interface ImportOptions
  extends Omit<MapOptions, "conversation" | "registry" | "parentConversation"> {
  /** Conversation streams are `<prefix><goose session id>`, registries `…-registry`. */
  prefix: string;
}

export interface SessionImportResult {
  sourceSession: string;
  conversation: string;
  registry: string;
  added: number;
  alreadyPresent: number;
  /** Of the facts added, by origin kind. */
  byKind: Record<"exact" | "inferred" | "synthetic", number>;
  calls: number;
  skipped: Record<string, number>;
  notes: string[];
}

export class GooseImportError extends Error {
  override readonly name = "GooseImportError";
}

/**
 * Appends what the ledger does not hold yet of one goose session: both streams' events are
 * read back, every fact whose origin key is already there is passed over, and the new ones are
 * built against the state folded so far and appended in order (so a conversation's fold sees
 * its registry's events where they happened, C1). Importing the same session again adds
 * nothing; after it grew, only what is new.
 */
export async function importGooseSession(
  store: EventStore,
  session: GooseSession,
  options: ImportOptions,
): Promise<SessionImportResult> {
  const conversation = `${options.prefix}${session.id}`;
  const registry = `${conversation}-registry`;
  const parentId =
    session.parentSessionId ??
    /^Subagent task for: (.+)$/.exec(session.name ?? "")?.[1]?.trim() ??
    null;
  const mapped = mapGooseSession(session, {
    ...options,
    conversation,
    registry,
    parentConversation: parentId === null ? null : `${options.prefix}${parentId}`,
  });
  const existing = [
    ...(await readWholeStream(store, registry)),
    ...(await readWholeStream(store, conversation)),
  ].sort((a, b) => a.globalPosition - b.globalPosition);
  checkSameSource(existing, session, conversation);

  let state: State = initialState();
  const byKey = new Map<string, ToolledgerEvent | ToolledgerEventInput>();
  const callIds = new Set<string>();
  for (const e of existing) {
    state = evolve(state, e.event);
    if (e.event.origin) byKey.set(e.event.origin.key, e.event);
    if (e.event.type === "ToolCallStarted") callIds.add(e.event.callId);
  }
  const facts = withInferredClear(mapped.facts, existing, session);
  const versions = {
    registry: existing.filter((e) => e.streamId === registry).length,
    conversation: existing.filter((e) => e.streamId === conversation).length,
  };
  const pending: { stream: "registry" | "conversation"; event: ToolledgerEvent }[] = [];
  const byKind = { exact: 0, inferred: 0, synthetic: 0 };
  let present = 0;
  for (const fact of facts) {
    if (byKey.has(fact.key)) {
      present++;
      continue;
    }
    const ctx: BuildContext = { state, byKey, callIds };
    const built = fact.build(ctx);
    if (built === null) continue;
    const origin: EventOrigin = {
      kind: fact.kind,
      source: `goose:${session.format}`,
      key: fact.key,
      ...(fact.note === undefined ? {} : { note: fact.note }),
    };
    const decoded = decodeEvent({ ...built, origin });
    if (!decoded.ok)
      throw new GooseImportError(
        `goose session ${session.id} (${session.path}): the fact ${fact.key} makes an event the ledger refuses: ${decoded.error.message}`,
      );
    const event = decoded.event;
    state = evolve(state, event);
    byKey.set(fact.key, event);
    if (event.type === "ToolCallStarted") callIds.add(event.callId);
    pending.push({ stream: fact.stream, event });
    byKind[fact.kind]++;
  }
  // Runs of one stream go in one append (one transaction), in order.
  for (let i = 0; i < pending.length; ) {
    const stream = pending[i]!.stream;
    let j = i;
    while (j < pending.length && pending[j]!.stream === stream) j++;
    const id = stream === "registry" ? registry : conversation;
    const expected = versions[stream];
    const result = await store.append(
      id,
      pending.slice(i, j).map((p) => ({
        eventId: newEventId(),
        event: p.event,
        metadata: { importedFrom: { host: "goose", path: session.path, session: session.id } },
      })),
      expected === 0 ? "no_stream" : expected,
    );
    if (!result.ok) {
      throw new GooseImportError(
        result.error.code === "VERSION_CONFLICT"
          ? `${id} changed while importing goose session ${session.id} (another import at the same time?); run the import again`
          : `goose session ${session.id}: appending to ${id} failed: ${describeRejection(result.error)}`,
      );
    }
    versions[stream] = result.nextExpectedVersion;
    i = j;
  }
  return {
    sourceSession: session.id,
    conversation,
    registry,
    added: pending.length,
    alreadyPresent: present,
    byKind,
    calls: pending.filter((p) => p.event.type === "ToolCallStarted").length,
    skipped: mapped.skipped,
    notes: mapped.notes,
  };
}

/**
 * A clear goose left no marker of: calls the ledger imported earlier are all gone from the
 * session now, and nothing in it says why (compaction keeps messages, agent-invisible). The
 * clear is inferred, before what is new.
 */
function withInferredClear(
  facts: Fact[],
  existing: readonly StoredEvent[],
  session: GooseSession,
): Fact[] {
  const importedCalls = existing
    .filter((e) => e.event.origin?.key.startsWith("call:"))
    .map((e) => e.event.origin!.key);
  if (importedCalls.length === 0) return facts;
  const keys = new Set(facts.map((f) => f.key));
  if (importedCalls.some((k) => keys.has(k))) return facts;
  const known = new Set(existing.map((e) => e.event.origin?.key));
  const firstNew = facts.findIndex(
    (f) => f.stream === "conversation" && !known.has(f.key) && !f.key.startsWith("usage"),
  );
  if (firstNew === -1) return facts;
  if (facts.slice(firstNew).some((f) => f.key.startsWith("clear:") && !known.has(f.key)))
    return facts;
  const at = new Date(
    Math.max(0, ...session.messages.slice(0, 1).map((m) => m.created * 1000)),
  ).toISOString();
  const cleared: Fact = {
    key: `clear-inferred:${importedCalls.length}:${facts[firstNew]!.key}`,
    stream: "conversation",
    kind: "inferred",
    note: "every call imported before is gone from goose's session and goose left no marker: a /clear (or a rewind) in between",
    build: () => ({ type: "Cleared", v: 1, at }),
  };
  return [...facts.slice(0, firstNew), cleared, ...facts.slice(firstNew)];
}

function checkSameSource(
  existing: readonly StoredEvent[],
  session: GooseSession,
  conversation: string,
): void {
  const imported = existing.find((e) => e.event.type === "SessionImported")?.event;
  if (existing.length > 0 && !imported) {
    throw new GooseImportError(
      `${conversation} already exists and was not imported from goose; import under another prefix with --prefix <p>`,
    );
  }
  if (imported?.type === "SessionImported" && imported.sourceSession !== session.id) {
    throw new GooseImportError(
      `${conversation} holds goose session ${imported.sourceSession}, not ${session.id}; import under another prefix with --prefix <p>`,
    );
  }
}

function describeRejection(e: { code: string; message?: string }): string {
  return e.message ?? e.code;
}
