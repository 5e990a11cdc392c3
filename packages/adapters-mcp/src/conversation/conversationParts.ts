import type { State } from "@toolledger/core";
import type { Subject } from "rxjs";
import type { AdapterError } from "../adapterError.js";
import type { ToolledgerHost } from "../host/toolledgerHost.js";
import type { StreamWriter } from "../ledger/streamWriter.js";
import type { PayloadCapture } from "../redaction/capturePayload.js";
import type { CallDurability, ConversationOptions } from "./conversationOptions.js";

/** What a conversation's operations (enables, calls) work with: its stream's writer and its host. */
export interface ConversationParts {
  readonly id: string;
  readonly host: ToolledgerHost;
  readonly writer: StreamWriter;
  /** L1: whether a call's start is stored before it goes upstream (when recorded behind). */
  readonly durability: CallDurability;
  /** C4: payload capture, or null when payloads are not recorded. */
  readonly payloads: PayloadCapture | null;
  readonly authorizeEnable: ConversationOptions["authorizeEnable"];
  /** Failures no caller can carry (see `Conversation.errors$`). */
  readonly errors: Subject<AdapterError>;
  /** C4: ids of the calls started and not finished yet (closing waits for them), and who waits. */
  readonly running: { ids: Set<string>; onIdle: (() => void) | null };
  /** The state the model sees now. */
  state(): State;
}
