import {
  classifyTool,
  type EventStore,
  foldConversation,
  getExtension,
  readConversationLog,
  type State,
} from "@toolledger/core";

/** A call as the audit judges it from the stored order: where its tool stood when it started. */
export interface JudgedCall {
  callId: string;
  publicName: string | null;
  /** D9: its tool was deferred and not enabled in the state right before its start. */
  deferred: boolean;
  outcome: string | null;
  reason: string | null;
}

/**
 * The audit's D9 judgement of a conversation as stored (`audit --calls` marks the same calls):
 * each call's tool classified in the state folded up to its start, in the stored order, and its
 * recorded outcome. A call that ran (`ok`, `tool_error`) while judged `deferred` is a D9
 * violation in the audit's eyes.
 */
export async function judgeCalls(store: EventStore, conversationId: string): Promise<JudgedCall[]> {
  const log = await readConversationLog(store, conversationId);
  const calls = new Map<string, JudgedCall>();
  let before: State | null = null;
  for (const step of foldConversation(log.events, log.registries)) {
    const e = step.stored.event;
    if (e.type === "ToolCallStarted" && step.source === "conversation" && before) {
      const owner = e.owner ?? null;
      const tool =
        owner === null
          ? undefined
          : getExtension(before, owner)?.tools.find((t) => t.publicName === e.publicName);
      calls.set(e.callId, {
        callId: e.callId,
        publicName: e.publicName ?? null,
        deferred: tool !== undefined && classifyTool(before, tool).class === "deferred",
        outcome: null,
        reason: null,
      });
    } else if (e.type === "ToolCallFinished") {
      const call = calls.get(e.callId);
      if (call && call.outcome === null) {
        call.outcome = e.outcome;
        call.reason = e.reason ?? null;
      }
    }
    before = step.state;
  }
  return [...calls.values()];
}

/** The calls the audit would flag: judged deferred, yet they ran. */
export function d9Violations(calls: readonly JudgedCall[]): JudgedCall[] {
  return calls.filter((c) => c.deferred && (c.outcome === "ok" || c.outcome === "tool_error"));
}
