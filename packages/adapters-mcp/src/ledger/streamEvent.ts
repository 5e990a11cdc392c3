import type { ToolledgerEvent } from "@toolledger/core";

/** An event of a stream as this process stored or read it. */
export interface StreamEvent {
  streamId: string;
  /** 1-based position in the stream. */
  streamPosition: number;
  globalPosition: number;
  eventId: string;
  event: ToolledgerEvent;
  /** True when another process appended it (C3: `toolledger clear` from the CLI). */
  external?: boolean;
}
