import type { ConversationClient, DeferralMode } from "@toolledger/core";
import type { WriteBehindSettings } from "../ledger/writeBehindQueue.js";
import type { PayloadCapture } from "../redaction/capturePayload.js";

export interface ConversationOptions {
  /** The conversation stream. Default `conv-<time>-<random>`; an existing conversation is resumed. */
  id?: string;
  /** C5: `clientInfo` from the client's `initialize`. */
  client?: ConversationClient | null;
  protocolVersion?: string | null;
  /** `stdio`, `streamable_http`, `in_process`, … */
  transport?: string | null;
  /** D1: recorded when the conversation starts (and again on resume when it changed). */
  deferral?: { mode: DeferralMode; alwaysLoad?: readonly string[]; budget?: number };
  /** C4: record call arguments and results (truncated, secrets redacted). Default: off. */
  recordPayloads?: boolean | PayloadCapture;
  /**
   * C3: how often to look for events another process appended to this conversation (a
   * `toolledger clear` from the CLI), in ms. Default 250; 0 never looks.
   */
  followIntervalMs?: number;
  /**
   * D5: the host's permission or hook layer for the model's `enable_tools` calls. With it,
   * a call records the request, asks this, and records the outcome: approved (checked then,
   * against the registry of that moment) or denied with the reason it returns. A hook that
   * throws denies, with its error as the reason. Without it, requests are answered at once.
   */
  authorizeEnable?: (request: EnableRequest) => Promise<EnableDecision> | EnableDecision;
  /**
   * C4: calls recorded behind their answer (`recordFinishAfterAnswer`) are committed in
   * groups: `commitWindowMs` (default 10) is the longest an event waits for its group,
   * `maxHeld` (default 1000) the most kept in memory while the store refuses them, and
   * `closeWaitMs` (default 5000) how long closing waits for the store before it reports the
   * events still held as lost.
   */
  writeBehind?: Partial<WriteBehindSettings>;
  /**
   * L1, for calls recorded behind their answer (`recordFinishAfterAnswer`): `"write-ahead"`
   * (default) stores each call's ToolCallStarted before the call goes upstream (calls that
   * arrive during a commit share the next one; a store that refuses holds the call up to
   * `writeBehind.aheadWaitMs`, then refuses it unmade); `"relaxed"` writes the start behind
   * too, in the finishes' group commits: faster, but a crash may lose the record of a call
   * that ran, and an outside append (a `toolledger clear`) may be stored before calls decided
   * ahead of it.
   */
  callDurability?: CallDurability;
}

/** L1: when a call's start must be durable (see `ConversationOptions.callDurability`). */
export type CallDurability = "write-ahead" | "relaxed";

/** D5: an `enable_tools` request awaiting the host's decision. */
export interface EnableRequest {
  conversationId: string;
  callId: string;
  names: string[];
}

export type EnableDecision = { approve: true } | { approve: false; reason: string };
